import Testing
@testable import supervise
@testable import SuperviseConfig
@testable import SuperviseLifecycle
import SuperviseProtocol
import SuperviseTestSupport

/// Durations at and near the longest accepted (`Int64.max` nanoseconds), from every place a user
/// or a child gives one — the command line, the config file (scheduled tasks and memory pressure
/// included), stdin's and `ctl`'s `sleep` and `wait … timeout=`, a child's `schedule …
/// earliest=` — run through the core on a clock that starts anywhere, with scheduled work and
/// memory pressure ticking. Nothing may trap: a deadline past the end of the clock is "never".
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct ExtremeDurationFuzzTests {
    @Test func commandLineDurationsRunThroughTheCore() throws {
        var run = FuzzRun("durations-extreme-cli", defaultIterations: 150)
        for _ in 0..<run.iterations {
            let (limit, window) = (Self.duration(&run.random), Self.duration(&run.random))
            var arguments = ["--limit", limit, "--window", window, "--grace", Self.duration(&run.random),
                             "--freeze-timeout", Self.duration(&run.random)]
            // Each half the time: a warning longer than the limit is a usage error too.
            if run.random.oneIn(2) { arguments += ["--expiry-warning", Self.duration(&run.random)] }
            if run.random.oneIn(2) { arguments += ["--aware", "--launch-timeout", Self.duration(&run.random)] }
            // A scheduled task's time must be longer than the expiry warning: the rest still runs.
            if run.random.oneIn(2) { arguments += ["--refresh-time", Self.duration(&run.random)] }
            if run.random.oneIn(2) { arguments += ["--processing-time", Self.duration(&run.random)] }
            arguments += ["--memory-warnings", "--reclaim-on-pressure", "--", "true"]
            // The window longer than the limit is a usage error: the rest still runs.
            guard let command = try? SuperviseCommand.parse(arguments), let specs = try? command.childSpecs() else { continue }
            let pressure = command.memoryPressure(configured: specs.memoryPressure)
            for spec in specs.children { Self.runCore(spec, pressure: pressure, &run.random) }
        }
    }

    /// Every duration key, each at or near the longest or left out (its default), so that most
    /// files pass the checks between them; the pressure's kernel range and the schedules' period
    /// are as often short, so that a task runs, and memory pressure fires, before the clock's end.
    @Test func configDurationsRunThroughTheCore() {
        var run = FuzzRun("durations-extreme-config", defaultIterations: 300)
        for _ in 0..<run.iterations {
            func key(_ name: String, short: String? = nil) -> String {
                if let short, run.random.oneIn(2) { return "\(name) = \"\(short)\"" }
                return run.random.oneIn(2) ? "\(name) = \"\(Self.duration(&run.random))\"" : ""
            }
            let text = """
                limit = "\(Self.longestText)"
                \(key("window"))
                \(key("expiry-warning"))
                \(key("grace"))
                \(key("freeze-timeout"))
                \(key("refresh-time"))
                \(key("processing-time"))
                memory-warnings = true
                reclaim-on-pressure = "moderate"
                \(key("pressure-window", short: "10s"))
                \(key("pressure-stall", short: "1s"))
                \(key("reclaim-pause"))
                [child.a]
                command = ["true"]
                aware = true
                \(key("launch-timeout"))
                restart = "always"
                \(key("restart-delay"))
                \(key("restart-delay-max"))
                [child.a.schedule.t]
                every = "\(run.random.oneIn(2) ? "1s" : Self.duration(&run.random))"
                [child.a.schedule.u]
                kind = "processing"
                every = "\(Self.duration(&run.random))"
                requires = ["idle"]
                """
            guard let config = try? ConfigFile.parseRun(text: text, path: "fuzz.toml", commandLine: SettingsOverrides())
            else { continue }
            for spec in config.children { Self.runCore(spec, pressure: config.memoryPressure, &run.random) }
        }
    }

    /// A hostile child's `schedule … earliest=` at the longest the protocol takes, in each unit:
    /// the task is due no earlier than its request, and the core ticks through it.
    @Test func aChildsLongestScheduleRunsThroughTheCore() throws {
        var run = FuzzRun("durations-extreme-schedule", defaultIterations: 300)
        for _ in 0..<run.iterations {
            let request = try #require(Self.scheduleRequest(&run.random))
            var spec = ChildSpec(name: "a", command: ["true"])
            spec.settings.refreshTime = Self.longest
            spec.settings.processingTime = Self.longest
            Self.runCore(spec, pressure: Self.pressure(reclaimPause: Self.longest), &run.random, childRequests: [request])
        }
    }

    /// stdin and `ctl` read the same lines: a hold's deadline is the instant plus its duration.
    @Test func sleepAndWaitDeadlinesSaturate() throws {
        var run = FuzzRun("durations-extreme-holds", defaultIterations: 500)
        for _ in 0..<run.iterations {
            let text = Self.duration(&run.random)
            let line = run.random.oneIn(2) ? "sleep \(text)" : "wait exited all timeout=\(text)"
            let now = Self.instant(&run.random)
            let hold: CommandHold
            switch try ControlParser.parse(line) {
            case .sleep(let duration): hold = .sleep(until: now + duration)
            case .wait(let state, let target, let timeout):
                hold = .wait(state: state, target: target, deadline: now + timeout, line: 1, text: line)
            default: Issue.record("\(line) is not a hold"); continue
            }
            #expect(hold.deadline.map { $0 >= now } == true, "\(line) at \(now)")
            let child = CommandHold.Child(name: "a", state: .active, isDone: false)
            _ = hold.verdict(over: [child], at: Instant(nanoseconds: .max))
        }
    }

    /// A duration near the longest: the maximum itself, whole seconds below it, or another unit.
    static func duration(_ random: inout SeededGenerator) -> String {
        let maximum: Int64 = 9_223_372_036
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return longestText
        case 1: return "\(maximum - Int64.random(in: 0...1000, using: &random))"
        case 2: return "\(Int64.random(in: 0...(maximum / 3600), using: &random))h"
        case 3: return "\(Int64.random(in: 0...(maximum / 60), using: &random))m"
        case 4: return "\(Int64.random(in: 0...3, using: &random))"
        default: return "\(Int64.random(in: 0...Int64.max / 1000, using: &random))us"
        }
    }

    /// A clock reading: the start of the clock, any time, or the very end of it.
    static func instant(_ random: inout SeededGenerator) -> Instant {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: .zero
        case 1: Instant(nanoseconds: .random(in: 0...Int64.max, using: &random))
        default: Instant(nanoseconds: .max - .random(in: 0...1_000_000_000, using: &random))
        }
    }

    /// The longest duration a user may give, and as written.
    static let longest = DurationParser.maximum
    static let longestText = "9223372036.854775807"

    /// `schedule t KIND earliest=…` at or near the longest the protocol takes (`Int64.max`
    /// milliseconds), in each of its units, read as the supervisor reads a child's line.
    static func scheduleRequest(_ random: inout SeededGenerator) -> Request? {
        let milliseconds = Int64.max - Int64.random(in: 0...1000, using: &random)
        let earliest = switch Int.random(in: 0..<5, using: &random) {
        case 0: "\(milliseconds)ms"
        case 1: "\(milliseconds / 1000)"
        case 2: "\(milliseconds / 1000)s"
        case 3: "\(milliseconds / 60_000)m"
        default: "\(milliseconds / 3_600_000)h"
        }
        let kind = random.oneIn(2) ? "refresh" : "processing"
        let requires = random.oneIn(2) ? " requires=idle,power" : ""
        guard case .success(let request) = RequestParser.parse(Array("schedule t \(kind) earliest=\(earliest)\(requires)".utf8))
        else { return nil }
        return request
    }

    /// Pressure settings the kernel takes, warning and reclaiming from `moderate`.
    static func pressure(reclaimPause: Duration) -> MemoryPressure.Settings {
        var settings = MemoryPressure.Settings.standard
        settings.warns = true
        settings.reclaimLevel = .moderate
        settings.reclaimPause = reclaimPause
        return settings
    }

    /// Random inputs to one child's core — commands, the child's requests (`childRequests` among
    /// them), scheduled-task conditions, memory pressure — ticking at every deadline the core or
    /// the pressure names: no input traps, and a requested task is never due before its request.
    static func runCore(_ spec: ChildSpec, pressure settings: MemoryPressure.Settings, _ random: inout SeededGenerator,
                        childRequests: [Request] = []) {
        var now = instant(&random)
        var core = ChildCore(settings: spec.settings, restart: spec.restart, freezerNotifies: random.oneIn(2),
                             schedules: spec.schedules, at: now)
        var pressure = MemoryPressure(settings: settings)
        pressure.armed(stall(&random), at: now)
        let t = TaskID("t")!
        let inputs: [LifecycleInput] = [
            .launched, .request(.hello), .background, .foreground, .request(.done(seq: 1)),
            .request(.begin(id: TaskID("b")!, name: nil)), .request(.end(id: TaskID("b")!)), .event(kind: "push", text: nil),
            .freezeVerified, .notFrozenYet, .freezeUnfinished, .lookUnfinished, .terminate(escalate: false),
            .terminate(escalate: true),
            .exited(.exited(1), treeEmpty: true), .exited(.signaled(9), treeEmpty: false), .treeEmptied,
            .runOver, .start, .restart, .reclaim, .killedWhileFrozen, .thawedFromOutside(seen: "x"),
            .runTask(t), .runTask(TaskID("u")!), .request(.taskCompleted(id: t, success: false)), .request(.cancel(id: t)),
            .conditions([]), .conditions(Set(ScheduleCondition.allCases)), .supervisorGap(longest),
        ] + childRequests.map { .request($0) }
        // Launched and in the background first, as often as not: where scheduled tasks run.
        var script: [LifecycleInput] = random.oneIn(2) ? [.launched, .request(.hello), .background] : []
        for _ in 0..<40 {
            let input = script.isEmpty ? inputs.randomElement(using: &random)! : script.removeFirst()
            var status = core.handle(input, at: now).status
            for request in childRequests {
                guard case .schedule(let schedule) = request, let task = core.work.pending[schedule.id], task.every == nil
                else { continue }
                #expect(task.dueAt >= task.requestedAt, "\(request) at \(task.requestedAt)")
            }
            if random.oneIn(4) {
                let candidates = [ReclaimPlan.Candidate(order: 0, suspendedSince: instant(&random), priority: 0, bytes: .max)]
                for action in pressure.fired(stall(&random), at: now, candidates: candidates) {
                    status = apply(action, to: &core, at: now) ?? status
                }
            }
            guard random.oneIn(2), let deadline = earliest(status.nextDeadline, pressure.nextDeadline) else { continue }
            now = max(now, deadline)
            _ = core.handle(.tick, at: now)
            for action in pressure.tick(at: now, candidates: []) { _ = apply(action, to: &core, at: now) }
        }
    }

    /// Carries out a pressure action on the one child: the status after it, if it was handed one.
    private static func apply(_ action: MemoryPressure.Action, to core: inout ChildCore, at now: Instant) -> ChildStatus? {
        switch action {
        case .level(let level): core.handle(.memoryPressure(level), at: now).status
        case .reclaim: core.handle(.reclaim, at: now).status
        case .log: nil
        }
    }

    /// A pressure file's figures: any share, any total up to the longest.
    static func stall(_ random: inout SeededGenerator) -> PressureStall {
        let total = Duration.nanoseconds(Int64.random(in: 0...Int64.max, using: &random))
        return PressureStall(some: .init(avg10: .random(in: 0...100, using: &random), avg60: 0, avg300: 0, total: total), full: nil)
    }
}
