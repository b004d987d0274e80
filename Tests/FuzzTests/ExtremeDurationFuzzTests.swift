import Testing
@testable import supervise
@testable import SuperviseConfig
@testable import SuperviseLifecycle
import SuperviseProtocol
import SuperviseTestSupport

/// Durations at and near the longest accepted (`Int64.max` nanoseconds), from every place a user
/// gives one — the command line, the config file, stdin's and `ctl`'s `sleep` and `wait …
/// timeout=` — run through the core on a clock that starts anywhere. Nothing may trap: a deadline
/// past the end of the clock is "never".
@Suite(.timeLimit(FuzzRun.timeLimit)) struct ExtremeDurationFuzzTests {
    @Test func commandLineDurationsRunThroughTheCore() throws {
        var run = FuzzRun("durations-extreme-cli", defaultIterations: 150)
        for _ in 0..<run.iterations {
            let (limit, window) = (Self.duration(&run.random), Self.duration(&run.random))
            var arguments = ["--limit", limit, "--window", window, "--grace", Self.duration(&run.random),
                             "--freeze-timeout", Self.duration(&run.random)]
            // Each half the time: a warning longer than the limit is a usage error too.
            if run.random.oneIn(2) { arguments += ["--expiry-warning", Self.duration(&run.random)] }
            if run.random.oneIn(2) { arguments += ["--aware", "--launch-timeout", Self.duration(&run.random)] }
            arguments += ["--", "true"]
            // The window longer than the limit is a usage error: the rest still runs.
            guard let command = try? SuperviseCommand.parse(arguments), let specs = try? command.childSpecs() else { continue }
            for spec in specs.children { Self.runCore(spec.settings, spec.restart, &run.random) }
        }
    }

    @Test func configDurationsRunThroughTheCore() {
        var run = FuzzRun("durations-extreme-config", defaultIterations: 150)
        for _ in 0..<run.iterations {
            let warning = run.random.oneIn(2) ? "expiry-warning = \"\(Self.duration(&run.random))\"" : ""
            let text = """
                limit = "\(Self.duration(&run.random))"
                window = "\(Self.duration(&run.random))"
                \(warning)
                grace = "\(Self.duration(&run.random))"
                freeze-timeout = "\(Self.duration(&run.random))"
                [child.a]
                command = ["true"]
                aware = true
                launch-timeout = "\(Self.duration(&run.random))"
                restart = "always"
                restart-delay = "\(Self.duration(&run.random))"
                restart-delay-max = "\(Self.duration(&run.random))"
                """
            guard let children = try? ConfigFile.parse(text: text, path: "fuzz.toml", commandLine: SettingsOverrides())
            else { continue }
            for spec in children { Self.runCore(spec.settings, spec.restart, &run.random) }
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
            #expect(hold.deadline >= now, "\(line) at \(now)")
            let child = CommandHold.Child(name: "a", state: .active, isDone: false)
            _ = hold.verdict(over: [child], at: Instant(nanoseconds: .max))
        }
    }

    /// A duration near the longest: the maximum itself, whole seconds below it, or another unit.
    static func duration(_ random: inout SeededGenerator) -> String {
        let maximum: Int64 = 9_223_372_036
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return "9223372036.854775807"
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

    /// Random inputs to one child's core, ticking at every deadline it names: no input traps.
    static func runCore(_ settings: LifecycleSettings, _ restart: RestartRules, _ random: inout SeededGenerator) {
        var core = ChildCore(settings: settings, restart: restart, freezerNotifies: random.oneIn(2))
        var now = instant(&random)
        let inputs: [LifecycleInput] = [
            .launched, .request(.hello), .background, .foreground, .request(.done(seq: 1)),
            .request(.begin(id: TaskID("t")!, name: nil)), .request(.end(id: TaskID("t")!)), .event(kind: "push", text: nil),
            .freezeVerified, .notFrozenYet, .freezeUnfinished, .terminate(escalate: false), .terminate(escalate: true),
            .exited(.exited(1), treeEmpty: true), .exited(.signaled(9), treeEmpty: false), .treeEmptied,
            .runOver, .start, .restart, .reclaim, .killedWhileFrozen, .thawedFromOutside(seen: "x"),
        ]
        for _ in 0..<40 {
            let decision = core.handle(inputs.randomElement(using: &random)!, at: now)
            if let deadline = decision.status.nextDeadline, random.oneIn(2) {
                now = max(now, deadline)
                _ = core.handle(.tick, at: now)
            }
        }
    }
}
