import Foundation

/// One seeded random interleaving against a real supervisor and the truth worker, checked by the
/// truth monitor after every step and at the end.
struct InterleavingRun {
    let seed: UInt64
    let backend: Backend
    let steps: Int
    /// The environment that replays it, for the failure messages.
    let replay: String

    /// What the run found, and the supervisor's figures for a soak.
    struct Result {
        var stepsDone = 0
        /// Why the steps stopped: the step limit, the main process killed, supervise ended, a lie.
        var ending = ""
        var exitStatus: Int32?
        var mismatches: [String] = []
        /// Disagreements that were gone at the monitor's second look.
        var cleared: [String] = []
        var elapsed = 0.0
        /// At the first step and at the last step the supervisor was still running.
        var descriptors: (start: Int, end: Int)?
        var residentKiB: (start: Int, end: Int)?
    }

    func run() throws -> Result {
        let start = Date()
        var result = Result()
        var generator = InterleavingGenerator(seed: seed)
        let run = try MonitoredSupervise(backend, generator.timing.arguments, aware: generator.aware, grace: generator.timing.grace)
        let context = "seed \(seed) (replay: \(replay)), freezer \(backend.rawValue), "
            + "\(generator.aware ? "aware" : "unaware") worker, \(generator.timing.arguments.joined(separator: " "))"
        var history: [String] = []
        func mismatch(_ what: String) {
            result.mismatches.append("\(context)\nafter: \(history.suffix(6).joined(separator: " | "))\n\(what)")
        }

        if !run.worker.started() { mismatch("the worker's tree never started") }
        var observation = run.monitor.wait("active", timeout: 10)
        let figuresAtStart = Self.figures(of: run.supervise.pid)
        var figuresAtEnd = figuresAtStart
        while case .truthful = observation, result.stepsDone < steps, !generator.finished {
            let burst = generator.step()
            history.append("\(result.stepsDone + 1): " + burst.map(\.description).joined(separator: ", "))
            var check: (state: String, timeout: Double)?
            for action in burst {
                switch action {
                case .command(let line): run.supervise.send([line])
                case .signal(let signal): run.supervise.signal(signal)
                case .order(let order): run.worker.order(order)
                case .kill(let beater): run.kill(beater)
                case .wait(let state, let timeout): check = (state, timeout)
                }
            }
            if run.mainKilled { check = ("exited", 10) }
            let signalled = burst.contains { if case .signal = $0 { true } else { false } }
            let clearedBefore = run.monitor.cleared.count
            observation = check.map { run.monitor.wait($0.state, timeout: $0.timeout, signalled: signalled) }
                ?? run.monitor.status(signalled: signalled)
            result.cleared += run.monitor.cleared[clearedBefore...].map { "step \(history.last ?? ""): \($0)" }
            result.stepsDone += 1
            if case .truthful(let state) = observation, state != "exited" {
                figuresAtEnd = Self.figures(of: run.supervise.pid) ?? figuresAtEnd
            }
        }
        switch observation {
        case .lie(let what):
            mismatch(what)
            result.ending = "a lie"
        case .silent:
            mismatch("supervise stopped answering status")
            result.ending = "no answer"
        case .ended: result.ending = "supervise ended by itself"
        case .truthful: result.ending = generator.finished ? "main process killed" : "step limit"
        }
        if let atStart = figuresAtStart, let atEnd = figuresAtEnd {
            result.descriptors = (atStart.descriptors, atEnd.descriptors)
            result.residentKiB = (atStart.residentKiB, atEnd.residentKiB)
        }
        for problem in run.finish() { mismatch(problem) }
        result.exitStatus = run.exitStatus
        result.elapsed = Date().timeIntervalSince(start)
        return result
    }

    /// The supervisor's open descriptors and resident memory, while it runs.
    static func figures(of pid: Int32) -> (descriptors: Int, residentKiB: Int)? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count,
              let status = ProcessInspector.read("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ")[1]) else { return nil }
        return (descriptors, kib)
    }
}
