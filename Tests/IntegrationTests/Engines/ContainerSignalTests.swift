import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// supervise as pid 1 of a real Docker or Podman container, driven as users drive it: `kill -s`,
/// `exec … kill -TERM 1`, `stop -t` with a worker that ignores SIGTERM, and a runtime grace
/// shorter than supervise's.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(10)))
struct ContainerSignalTests {
    static let suite = "ContainerSignalTests"

    /// A worker that ignores SIGTERM and says nothing: only a SIGKILL ends it.
    static let stubborn = ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.2; done"]

    /// supervise as the entrypoint, with a control socket for `docker exec … supervise ctl`, the
    /// report at /reports/report.json and `options` before `--`.
    static func start(on cli: EngineCLI, _ options: [String], worker: [String] = ["/workers/aware-worker.sh"],
                      environment: [String] = []) throws -> EngineContainer {
        try EngineContainer.start(on: cli, ["--control", "none", "--socket", "/run/supervise.sock", "--report", "/reports/report.json",
                                   "--name", "worker"] + options + ["--"] + worker,
                                  options: environment.flatMap { ["-e", $0] })
    }

    /// `supervise ctl --socket /run/supervise.sock COMMAND` in the container, once its socket is there.
    static func ctl(_ container: EngineContainer, _ command: String) -> (status: Int32, output: String) {
        guard eventually(timeout: 30, { (try? container.exec(["test", "-S", "/run/supervise.sock"]))?.status == 0 }) else {
            return (-1, "no /run/supervise.sock within 30 s: \(container.logs())")
        }
        let words = command.split(separator: " ").map(String.init)
        return (try? container.exec(["supervise", "ctl", "--socket", "/run/supervise.sock"] + words)) ?? (-1, "docker exec failed")
    }

    /// The worker as the host sees it: the only child of the container's pid 1.
    static func hostWorker(_ container: EngineContainer) throws -> Int32 {
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
        let container = try Self.start(on: cli, ["--grace", "2s"])
        defer { container.remove() }
        #expect(Self.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let worker = try Self.hostWorker(container)
        try container.engine.checked(["kill", "-s", "USR1", container.name])
        #expect(Self.ctl(container, "wait suspended timeout=10s").status == 0, "\(container.logs())")
        // Unprivileged, the container's cgroup trees are read-only: auto takes sigstop.
        #expect(FreezeProbe(backend: .sigstop).unfrozen(ProcessInspector.tree(of: worker)) == [], "the host sees the worker stopped")
        try container.engine.checked(["kill", "-s", "USR2", container.name])
        #expect(Self.ctl(container, "wait active timeout=10s").status == 0, "\(container.logs())")
        #expect(eventually { !ProcessInspector.isStopped(worker) }, "the host sees the worker running again")
        try container.engine.checked(["stop", "-t", "10", container.name])
        #expect(container.exitStatus(timeout: 5) == 0, "\(container.logs())")
        #expect(try Self.child(container.report("report.json"))["freezer"] as? String == "sigstop")
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func killTERMOfPidOneThroughExecStopsCleanly(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        let container = try Self.start(on: cli, ["--grace", "2s"])
        defer { container.remove() }
        #expect(Self.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let killed = try container.exec(["/bin/sh", "-c", "kill -TERM 1"])
        #expect(killed.status == 0, "\(killed.output)")
        #expect(container.exitStatus(timeout: 20) == 0, "\(container.logs())")
        let exit = try #require(try Self.child(container.report("report.json"))["exit"] as? [String: Any])
        #expect(exit["by"] as? String == "terminate")
        #expect(exit["in_time"] as? Bool == true)
    }

    /// supervise's grace ends before the runtime's: supervise SIGKILLs the worker, reports it and
    /// exits 137 itself, well before `docker stop`'s own SIGKILL.
    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        let container = try Self.start(on: cli, ["--grace", "2s"], worker: Self.stubborn)
        defer { container.remove() }
        #expect(Self.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let start = Date()
        try container.engine.checked(["stop", "-t", "20", container.name])
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 2 && elapsed < 20, "stopped by supervise's grace, not docker's: \(elapsed) s")
        #expect(container.exitStatus(timeout: 5) == 137, "\(container.logs())")
        let report = try container.report("report.json")
        #expect(report["exit_status"] as? Int == 137)
        let exit = try #require(try Self.child(report)["exit"] as? [String: Any])
        #expect(exit["by"] as? String == "kill")
        #expect(exit["in_time"] as? Bool == false)
    }

    /// The runtime's grace is shorter than supervise's: docker SIGKILLs the whole container in
    /// the middle of supervise's ladder, and the report is lost. What docs/deploy.md tells users
    /// to set (`docker stop -t` ≥ 2 × grace + 5 s) is what prevents it.
    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aRuntimeGraceShorterThanSupervisesLosesTheReport(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        let container = try Self.start(on: cli, ["--grace", "10s"], worker: Self.stubborn)
        defer { container.remove() }
        #expect(Self.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let start = Date()
        try container.engine.checked(["stop", "-t", "2", container.name])
        #expect(Date().timeIntervalSince(start) < 10, "docker's SIGKILL came first")
        #expect(container.exitStatus(timeout: 5) == 137, "\(container.logs())")
        #expect(!FileManager.default.fileExists(atPath: container.reports.file("report.json")), "the report was never written")
        let log = container.logs()
        #expect(log.contains("supervise: worker: terminating") && !log.contains("supervise: worker: exited"),
                "cut off in the ladder: \(log)")
    }
}
}
