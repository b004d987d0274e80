import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// supervise as pid 1 of a real Docker or Podman container, driven as users drive it: `kill -s`,
/// `exec … kill -TERM 1`, `stop -t` with a worker that ignores SIGTERM, and a runtime grace
/// shorter than supervise's. Each scenario takes how to start a container, so `RuncTests` plays
/// the same ones on runc alone.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(10)))
struct ContainerSignalTests {
    static let suite = "ContainerSignalTests"

    /// A worker that ignores SIGTERM and says nothing: only a SIGKILL ends it.
    static let stubborn = ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.2; done"]

    /// supervise's arguments with a control socket for `exec … supervise ctl`, the report at
    /// /reports/report.json and `options` before `--`.
    static func arguments(_ options: [String], worker: [String] = ["/workers/aware-worker.sh"]) -> [String] {
        ["--control", "none", "--socket", "/run/supervise.sock", "--report", "/reports/report.json", "--name", "worker"] + options + ["--"] + worker
    }

    /// `supervise ctl --socket /run/supervise.sock COMMAND` in the container, once its socket is there.
    static func ctl(_ container: some SupervisedContainer, _ command: String) -> (status: Int32, output: String) {
        guard eventually(timeout: 30, { (try? container.exec(["test", "-S", "/run/supervise.sock"]))?.status == 0 }) else {
            return (-1, "no /run/supervise.sock within 30 s: \(container.logs())")
        }
        let words = command.split(separator: " ").map(String.init)
        return (try? container.exec(["supervise", "ctl", "--socket", "/run/supervise.sock"] + words)) ?? (-1, "exec failed")
    }

    /// The worker as the host sees it: the only child of the container's pid 1.
    static func hostWorker(_ container: some SupervisedContainer) throws -> Int32 {
        let supervisor = try container.hostPID()
        var children: Set<Int32> = []
        try #require(eventually { children = ProcessInspector.liveChildren(of: supervisor); return children.count == 1 },
                     "pid 1 has not one child but \(children): \(container.logs())")
        return try #require(children.first)
    }

    /// The report's one child.
    static func child(_ report: [String: Any]) throws -> [String: Any] {
        try #require((report["children"] as? [[String: Any]])?.first, "\(report)")
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func killUSR1BackgroundsAndUSR2ForegroundsTheWorker(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.signalUSR1BackgroundsAndUSR2ForegroundsTheWorker(start: EngineContainer.starter(on: cli))
    }

    /// USR1 suspends the worker (stopped, as the host sees it), USR2 resumes it, the stop ends it.
    static func signalUSR1BackgroundsAndUSR2ForegroundsTheWorker<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(arguments(["--grace", "2s"]), [])
        defer { container.remove() }
        #expect(ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let worker = try hostWorker(container)
        try container.kill("USR1")
        #expect(ctl(container, "wait suspended timeout=10s").status == 0, "\(container.logs())")
        // Unprivileged, the container's cgroup trees are read-only: auto takes sigstop.
        #expect(FreezeProbe(backend: .sigstop).unfrozen(ProcessInspector.tree(of: worker)) == [], "the host sees the worker stopped")
        try container.kill("USR2")
        #expect(ctl(container, "wait active timeout=10s").status == 0, "\(container.logs())")
        #expect(eventually { !ProcessInspector.isStopped(worker) }, "the host sees the worker running again")
        try container.stop(grace: 10)
        #expect(container.exitStatus(timeout: 5) == 0, "\(container.logs())")
        #expect(try child(container.report("report.json"))["freezer"] as? String == "sigstop", "\(container.logs())")
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func killTERMOfPidOneThroughExecStopsCleanly(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.killTERMOfPidOneThroughExecStopsCleanly(start: EngineContainer.starter(on: cli))
    }

    /// `exec … kill -TERM 1`: supervise terminates the worker in time and exits 0.
    static func killTERMOfPidOneThroughExecStopsCleanly<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(arguments(["--grace", "2s"]), [])
        defer { container.remove() }
        #expect(ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let killed = try container.exec(["/bin/sh", "-c", "kill -TERM 1"])
        #expect(killed.status == 0, "\(killed.output)")
        #expect(container.exitStatus(timeout: 20) == 0, "\(container.logs())")
        let exit = try #require(try child(container.report("report.json"))["exit"] as? [String: Any])
        #expect(exit["by"] as? String == "terminate")
        #expect(exit["in_time"] as? Bool == true)
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes(start: EngineContainer.starter(on: cli))
    }

    /// supervise's grace ends before the runtime's: supervise SIGKILLs the worker, reports it and
    /// exits 137 itself, well before the runtime's own SIGKILL.
    static func aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(arguments(["--grace", "2s"], worker: stubborn), [])
        defer { container.remove() }
        #expect(ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let begun = Date()
        try container.stop(grace: 20)
        let elapsed = Date().timeIntervalSince(begun)
        #expect(elapsed >= 2 && elapsed < 20, "stopped by supervise's grace, not the runtime's: \(elapsed) s")
        #expect(container.exitStatus(timeout: 5) == 137, "\(container.logs())")
        let report = try container.report("report.json")
        #expect(report["exit_status"] as? Int == 137)
        let exit = try #require(try child(report)["exit"] as? [String: Any])
        #expect(exit["by"] as? String == "kill")
        #expect(exit["in_time"] as? Bool == false)
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aRuntimeGraceShorterThanSupervisesLosesTheReport(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.aRuntimeGraceShorterThanSupervisesLosesTheReport(start: EngineContainer.starter(on: cli))
    }

    /// The runtime's grace is shorter than supervise's: the runtime SIGKILLs the whole container
    /// in the middle of supervise's ladder, and the report is lost. What docs/deploy.md tells
    /// users to set (`docker stop -t` ≥ 2 × grace + 5 s) is what prevents it.
    static func aRuntimeGraceShorterThanSupervisesLosesTheReport<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(arguments(["--grace", "10s"], worker: stubborn), [])
        defer { container.remove() }
        #expect(ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let begun = Date()
        try container.stop(grace: 2)
        #expect(Date().timeIntervalSince(begun) < 10, "the runtime's SIGKILL came first")
        #expect(container.exitStatus(timeout: 5) == 137, "\(container.logs())")
        #expect(!FileManager.default.fileExists(atPath: container.reports.file("report.json")), "the report was never written")
        let log = container.logs()
        #expect(log.contains("supervise: worker: terminating") && !log.contains("supervise: worker: exited"),
                "cut off in the ladder: \(log)")
    }
}
}
