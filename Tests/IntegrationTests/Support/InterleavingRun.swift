import Foundation

/// One seeded random interleaving against a real supervisor and the truth worker, checked by the
/// truth monitor after every step and at the end.
struct InterleavingRun {
    let seed: UInt64
    let backend: Backend
    let steps: Int

    /// What the run found, and the supervisor's figures for a soak.
    struct Result {
        var stepsDone = 0
        var mismatches: [String] = []
        var inconclusive = 0
        var elapsed = 0.0
        var descriptors: (start: Int, end: Int)?
        var residentKiB: (start: Int, end: Int)?
    }

    func run() throws -> Result {
        let start = Date()
        var result = Result()
        var generator = InterleavingGenerator(seed: seed)
        let directory = Supervise.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let worker = try TruthWorker(in: directory)
        let supervise = try InteractiveSupervise(
            ["--freezer", backend.rawValue, "--name", "truth", "--freeze-timeout", "5"] + generator.timing.arguments
                + ["--"] + worker.command,
            environment: ["AWARE": generator.aware ? "1" : "0"], in: directory)
        let monitor = TruthMonitor(backend: backend, supervise: supervise, worker: worker)
        let context = "seed \(seed) (replay: SUPERVISE_SEED=\(seed)), freezer \(backend.rawValue), "
            + "\(generator.aware ? "aware" : "unaware") worker, \(generator.timing.arguments.joined(separator: " "))"
        var history: [String] = []
        var mainKilled = false

        func mismatch(_ what: String) {
            result.mismatches.append("\(context)\nafter: \(history.suffix(6).joined(separator: " | "))\n\(what)")
        }

        if !worker.started() { mismatch("the worker's tree never started") }
        let first = monitor.wait("active", timeout: 10)
        let figuresAtStart = Self.figures(of: supervise.pid)
        var observation = first
        while case .truthful = observation, result.stepsDone < steps, !generator.finished {
            let burst = generator.step()
            history.append("\(result.stepsDone + 1): " + burst.map(\.description).joined(separator: ", "))
            var check: (String, Double)?
            for action in burst {
                switch action {
                case .command(let line): supervise.send([line])
                case .signal(let signal): supervise.signal(signal)
                case .order(let order): worker.order(order)
                case .kill(let beater):
                    mainKilled = mainKilled || beater == "main"
                    if let identity = worker.identity(beater), identity.isAlive { kill(identity.pid, SIGKILL) }
                case .wait(let state, let timeout): check = (state, timeout)
                }
            }
            if mainKilled { check = ("exited", 10) }
            observation = check.map { monitor.wait($0.0, timeout: $0.1) } ?? monitor.status()
            result.stepsDone += 1
        }
        switch observation {
        case .lie(let what): mismatch(what)
        case .silent: mismatch("supervise stopped answering status")
        case .truthful, .ended: break
        }
        let figuresAtEnd = Self.figures(of: supervise.pid)
        if let figuresAtStart, let figuresAtEnd {
            result.descriptors = (figuresAtStart.descriptors, figuresAtEnd.descriptors)
            result.residentKiB = (figuresAtStart.residentKiB, figuresAtEnd.residentKiB)
        }

        supervise.send(["terminate"])
        let end = supervise.finish(timeout: generator.timing.grace + 20)
        if !end.exitedInTime { mismatch("supervise did not exit within \(generator.timing.grace + 20) s of terminate") }
        for problem in monitor.leftovers() { mismatch(problem) }
        let outcome = OutcomeCheck(status: end.status, report: end.report, stderr: supervise.stderrLines,
                                   monitor: monitor, mainKilled: mainKilled)
        for problem in outcome.problems() { mismatch(problem) }
        monitor.cleanUp()
        result.inconclusive = monitor.inconclusive
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
