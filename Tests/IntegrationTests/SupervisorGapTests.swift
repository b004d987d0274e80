import Foundation
import Testing
import SuperviseTestSupport

/// Time the supervisor did not run (`kill -STOP`, a frozen cgroup holding it and its child): the
/// child is not judged on it, and always gets `expire` the expiry warning before an expiry kill
/// (docs/protocol.md, "Time the supervisor did not run").
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct SupervisorGapTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var log: String { temporary.file("events.log") }
    /// How long the tests keep the supervisor from running: well past the window and the limit.
    static let gapSeconds = 3.0

    /// `supervise` with a short window, limit and warning (1 s, 2 s, 1 s) around `aware-worker.sh`.
    func start(_ backend: Backend, _ environment: [String: String]) throws -> LiveSupervise {
        try LiveSupervise(["--aware", "--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "1", "--limit", "2",
                           "--expiry-warning", "1", "--name", "worker", "--", Supervise.worker("aware-worker.sh")],
                          environment: environment.merging(["WORKER_LOG": log]) { $1 })
    }

    /// Sends `background` and waits until the worker has read `did-enter-background`, then a little
    /// longer for its answer to be read; the supervisor then waits on its timers.
    func enterBackground(_ supervise: LiveSupervise) throws {
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        supervise.send("background")
        let entered = eventually(timeout: 10) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("did-enter-background 1")
        }
        try #require(entered, "the worker never got did-enter-background; log:\n\(supervise.log)")
        Thread.sleep(forTimeInterval: 0.3)
    }

    /// The one gap of the run, checked to be about `seconds` long; nil (and an issue) otherwise.
    func oneGap(_ run: SuperviseRun, about seconds: Double) -> [String: Any]? {
        let gaps = run.report?["supervisor_gaps"] as? [[String: Any]]
        guard let gaps, gaps.count == 1, let gap = gaps.first else {
            Issue.record("expected one supervisor gap, got \(String(describing: gaps)); log:\n\(run.stderr)")
            return nil
        }
        let length = gap["gap_ms"] as? Double ?? 0, late = gap["late_ms"] as? Double ?? 0
        #expect(length >= seconds * 1000 && length < seconds * 1000 + 5000, "\(gap)")
        #expect(late > 250 && late <= length, "\(gap)")
        #expect(run.stderr.components(separatedBy: "the supervisor was not running for").count == 2,
                "one log line says so:\n\(run.stderr)")
        return gap
    }

    /// A worker holding a task while its supervisor is stopped past the limit gets `expire` once it
    /// runs again, has time to end the task, and is suspended: no violation, exit 0. A `wait`
    /// held across the stop does not count the stop against its timeout either.
    @Test(arguments: Backend.usable(in: "SupervisorGapTests"))
    func taskHeldAcrossAStopIsExpiredAndMayEnd(backend: Backend) throws {
        let supervise = try start(backend, ["WORKER_ON_BACKGROUND": "hold", "WORKER_ON_EXPIRE": "end"])
        defer { supervise.stop() }
        try enterBackground(supervise)
        // Its timeout passes during the stop; the worker is suspended about a second after it.
        supervise.send("wait suspended timeout=2500ms")
        Thread.sleep(forTimeInterval: 0.2)
        let supervisor = try #require(supervise.supervisorPID)
        kill(supervisor, SIGSTOP)
        Thread.sleep(forTimeInterval: Self.gapSeconds)
        kill(supervisor, SIGCONT)
        let status = try #require(supervise.status(), "\(supervise.log)")
        #expect(status["state"] as? String == "suspended", "\(supervise.log)")
        let pid = try #require((status["pid"] as? Int).map(Int32.init))
        let probe = FreezeProbe(backend: backend, cgroup: status["cgroup"] as? String)
        #expect(probe.unfrozen(ProcessInspector.tree(of: pid).filter(\.isAlive)) == [], "suspended means frozen")
        supervise.send("terminate")
        let run = supervise.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.violations.isEmpty, "\(run.violations)")
        let task = try #require(run.tasks.first)
        #expect(task["expire_ms"] is Double && task["end_ms"] is Double, "\(task)")
        _ = oneGap(run, about: Self.gapSeconds)
    }

    /// A worker that does not answer `expire` is killed, but only the expiry warning after it.
    @Test func taskHeldAcrossAStopIsKilledOnlyTheWarningAfterExpire() throws {
        let supervise = try start(.sigstop, ["WORKER_ON_BACKGROUND": "hold"])
        defer { supervise.stop() }
        try enterBackground(supervise)
        let supervisor = try #require(supervise.supervisorPID)
        kill(supervisor, SIGSTOP)
        Thread.sleep(forTimeInterval: Self.gapSeconds)
        kill(supervisor, SIGCONT)
        let status = supervise.exitStatus(timeout: 20)
        let run = supervise.finish()
        #expect(status == 124, "\(run.stderr)")
        let expired = try #require(run.tasks.first?["expire_ms"] as? Double, "\(run.tasks)")
        let killed = try #require(run.violations.first?["at_ms"] as? Double, "\(run.violations)")
        #expect(run.violations.first?["kind"] as? String == "expiry")
        #expect(killed - expired >= 999.999, "expire at \(expired) ms, killed at \(killed) ms")
        _ = oneGap(run, about: Self.gapSeconds)
    }

    /// A cgroup that holds both the supervisor and its child is frozen past the window and the
    /// limit, as `docker pause` does: the child, which could not run either, is judged on neither.
    @Test(arguments: FreezingHost.Kind.allCases)
    func freezeOfTheWholeHostJudgesNothing(kind: FreezingHost.Kind) throws {
        if let reason = kind.unavailableReason {
            print("SupervisorGapTests: \(kind) freeze of the host skipped: \(reason)")
            return
        }
        // The window (1 s) passes during the freeze; the worker answers after 0.5 s of its own time,
        // so after the thaw (it had 0.3 s before the freeze) and well within the window given back
        // (a busy machine slows its steps).
        let supervise = try start(.sigstop, ["WORKER_ON_BACKGROUND": "late-done", "WORKER_DONE_STEPS": "5"])
        defer { supervise.stop() }
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        let child = try #require(supervise.status()?["pid"] as? Int, "\(supervise.log)")
        let host = try FreezingHost(kind, holding: [try #require(supervise.supervisorPID), Int32(child)])
        defer { host.remove() }
        try enterBackground(supervise)
        try host.freeze()
        Thread.sleep(forTimeInterval: Self.gapSeconds)
        try host.thaw()
        #expect(supervise.wait(for: "suspended") == "suspended", "\(supervise.log)")
        supervise.send("terminate")
        let run = supervise.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.violations.isEmpty, "\(run.violations)")
        _ = oneGap(run, about: Self.gapSeconds)
    }
}

/// A cgroup of the test's own (v2, or v1's freezer) that processes are moved into and that is
/// frozen whole, as a container runtime freezes a container.
struct FreezingHost {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case cgroup2, cgroup1
        var testDescription: String { rawValue }

        var mount: String? {
            switch self {
            case .cgroup2: Backend.mountPoint(type: "cgroup2", option: nil)
            case .cgroup1: Backend.mountPoint(type: "cgroup", option: "freezer")
            }
        }

        /// Why such a cgroup can't be made and frozen here, or `nil`.
        var unavailableReason: String? {
            switch self {
            case .cgroup2: Backend.cgroup2.unavailableReason
            case .cgroup1: Backend.cgroup1.unavailableReason
            }
        }
    }

    let kind: Kind
    let path: String

    /// Makes the cgroup and moves `pids` into it.
    init(_ kind: Kind, holding pids: [Int32]) throws {
        self.kind = kind
        guard let mount = kind.mount else { throw SetupFailure("no \(kind) mount") }
        path = mount + "/supervise-test-gap-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(path, 0o755) == 0 else { throw SetupFailure("mkdir \(path): \(String(cString: strerror(errno)))") }
        for pid in pids { try write("\(pid)", to: "cgroup.procs") }
    }

    func freeze() throws {
        switch kind {
        case .cgroup2:
            try write("1", to: "cgroup.freeze")
            try require(eventually(timeout: 10) { read("cgroup.events").contains("frozen 1") }, "not frozen")
        case .cgroup1:
            try write("FROZEN", to: "freezer.state")
            try require(eventually(timeout: 10) { read("freezer.state").hasPrefix("FROZEN") }, "not frozen")
        }
    }

    func thaw() throws {
        try write(kind == .cgroup2 ? "0" : "THAWED", to: kind == .cgroup2 ? "cgroup.freeze" : "freezer.state")
    }

    /// Thaws it, and removes it once the processes in it are gone (moved back to the root first).
    func remove() {
        try? thaw()
        let root = (path as NSString).deletingLastPathComponent + "/cgroup.procs"
        for pid in read("cgroup.procs").split(separator: "\n") {
            try? String(pid).write(toFile: root, atomically: false, encoding: .utf8)
        }
        removeCgroup(path)
    }

    private func read(_ file: String) -> String {
        (try? String(contentsOfFile: path + "/" + file, encoding: .utf8)) ?? ""
    }

    private func write(_ text: String, to file: String) throws {
        do {
            try text.write(toFile: path + "/" + file, atomically: false, encoding: .utf8)
        } catch {
            throw SetupFailure("cannot write \(text) to \(path)/\(file): \(error)")
        }
    }

    private func require(_ condition: Bool, _ what: String) throws {
        guard condition else { throw SetupFailure("\(path): \(what)") }
    }
}
