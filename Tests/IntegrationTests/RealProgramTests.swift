import Foundation
import Testing
import SuperviseTestSupport

/// Real multi-process servers under supervise, on each freezer: while suspended every process of
/// the server is frozen (as the kernel tells it) and nobody answers; in the foreground all run
/// again; `terminate` stops the server cleanly and leaves nothing behind.
///
/// PostgreSQL's backends and auxiliary processes each call `setsid`, and nginx with `daemon on`
/// double-forks into a session of its own: trees that leave the child's process group.
/// Serialized: each test runs a whole server, and freezes must not race a loaded machine.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(6))) struct RealProgramTests {
    static let options = ["--window", "0", "--freeze-timeout", "5", "--grace", "10"]

    @Test(.skip("PostgreSQL", because: PostgresCluster.missingReason, in: "RealProgramTests"),
          arguments: Backend.usable(in: "RealProgramTests"))
    func postgresIsFrozenResumedAndStoppedWhole(backend: Backend) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--config", try cluster.writeConfig()])
        let seen = SeenProcesses()
        var cgroup: String?
        defer {
            supervise.stop()
            seen.killSurvivors(cgroup: cgroup)
        }
        try #require(eventually(timeout: 30) { cluster.isReady() }, "PostgreSQL never accepted connections:\n\(supervise.log)")
        let status = try #require(supervise.status())
        let postmaster = try #require((status["pid"] as? Int).map(Int32.init))
        cgroup = status["cgroup"] as? String
        #expect(cluster.postmasterPid == postmaster, "no runuser in between: the postmaster is supervise's child")
        let credentials = try String(contentsOfFile: "/proc/\(postmaster)/status", encoding: .utf8)
        let uid = getpwnam("postgres")!.pointee.pw_uid
        #expect(credentials.contains("Uid:\t\(uid)\t\(uid)\t\(uid)\t\(uid)\n"), "runs as postgres: \(credentials)")
        #expect(credentials.contains("CapEff:\t0000000000000000\n") && credentials.contains("NoNewPrivs:\t1\n"), "\(credentials)")

        let query = try cluster.startQuery("SELECT pg_sleep(2)")
        defer { if query.isRunning { query.terminate() } }
        try #require(eventually(timeout: 20) {
            ProcessInspector.tree(of: postmaster).contains { ProcessInspector.commandLine($0.pid).contains("[local]") }
        }, "no backend started for the query")
        seen.add(ProcessInspector.tree(of: postmaster))

        supervise.send("background")
        #expect(supervise.wait(for: "suspended") == "suspended", "\(supervise.log)")
        let tree = ProcessInspector.tree(of: postmaster)
        seen.add(tree)
        let probe = FreezeProbe(backend: backend, cgroup: cgroup)
        let unfrozen = probe.unfrozen(tree)
        #expect(unfrozen.isEmpty, """
            supervise says suspended, yet of \(tree.count) processes of the server:
            \(unfrozen.joined(separator: "\n"))
            """)
        #expect(!cluster.isReady(), "a suspended server accepted a connection")

        supervise.send("foreground")
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        let stillFrozen = probe.stillFrozen(ProcessInspector.tree(of: postmaster))
        #expect(stillFrozen.isEmpty, "after foreground: \(stillFrozen.joined(separator: "; "))")
        #expect(eventually(timeout: 20) { !query.isRunning }, "the query did not finish in the foreground")
        #expect(query.terminationStatus == 0 && cluster.queryOutput.contains("(1 row)"), "psql: \(cluster.queryOutput)")
        #expect(cluster.isReady(), "the server does not accept connections after foreground")

        seen.add(ProcessInspector.tree(of: postmaster))
        supervise.send("terminate")
        let run = supervise.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.exit["by"] as? String == "terminate" && run.exit["in_time"] as? Bool == true, "\(run.exit)")
        #expect(run.exit["description"] as? String == "exited with 0", "SIGTERM is a smart shutdown: \(run.exit)")
        #expect(run.stderr.contains("database system is shut down"), "\(run.stderr)")
        #expect(eventually(timeout: 5) { seen.alive.isEmpty }, "left running after supervise exited: \(seen.alive)")
        #expect(cluster.postmasterPid == nil, "postmaster.pid is still there: the server did not shut down cleanly")
        if let cgroup { #expect(!FileManager.default.fileExists(atPath: cgroup), "the child's cgroup is left: \(cgroup)") }
    }

    @Test(.skip("nginx", because: NginxServer.missingReason, in: "RealProgramTests"),
          arguments: Backend.usable(in: "RealProgramTests"))
    func nginxIsFrozenResumedAndStoppedWhole(backend: Backend) throws {
        try runNginx(daemon: false, backend: backend)
    }

    @Test(.skip("nginx", because: NginxServer.missingReason, in: "RealProgramTests"),
          arguments: Backend.usable(in: "RealProgramTests"))
    func daemonizedNginxIsFrozenResumedAndStoppedWhole(backend: Backend) throws {
        try runNginx(daemon: true, backend: backend)
    }

    /// nginx's master and its two workers (and with `daemon on`, the shell that started them).
    func runNginx(daemon: Bool, backend: Backend) throws {
        let server = try NginxServer(daemon: daemon)
        defer { server.remove() }
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--name", "nginx"] + Self.options
                                          + ["--"] + server.command)
        let seen = SeenProcesses()
        var cgroup: String?
        defer {
            supervise.stop()
            seen.killSurvivors(cgroup: cgroup)
        }
        try #require(eventually(timeout: 30) { server.answer(timeout: 1) != nil },
                     "nginx never answered:\n\(supervise.log)\n\(server.errorLog)")
        let status = try #require(supervise.status())
        let child = try #require((status["pid"] as? Int).map(Int32.init))
        cgroup = status["cgroup"] as? String
        // nginx writes its pid file by truncating, then writing: it may be read empty once.
        try #require(eventually(timeout: 10) { server.masterPid != nil }, "nginx wrote no pid file:\n\(server.errorLog)")
        let master = try #require(server.masterPid)
        #expect(daemon ? master != child : master == child, "master \(master), supervise's child \(child)")
        // With daemon on, the master was reparented to supervise (a subreaper), out of the child's tree.
        func tree() -> [ProcessEntry] {
            var processes = ProcessInspector.tree(of: child)
            processes += ProcessInspector.tree(of: master).filter { !processes.contains($0) }
            return processes
        }
        try #require(eventually(timeout: 20) {
            tree().filter { ProcessInspector.commandLine($0.pid).contains("worker process") }.count == 2
        }, "nginx did not start its two workers")
        seen.add(tree())

        supervise.send("background")
        #expect(supervise.wait(for: "suspended") == "suspended", "\(supervise.log)")
        let frozenTree = tree()
        seen.add(frozenTree)
        let probe = FreezeProbe(backend: backend, cgroup: cgroup)
        let unfrozen = probe.unfrozen(frozenTree)
        #expect(unfrozen.isEmpty, """
            supervise says suspended, yet of \(frozenTree.count) processes of nginx:
            \(unfrozen.joined(separator: "\n"))
            """)
        let answered = server.answer(timeout: 1)
        #expect(answered == nil, "a suspended nginx answered: \(answered ?? "")")

        supervise.send("foreground")
        #expect(supervise.wait(for: "active") == "active", "\(supervise.log)")
        let stillFrozen = probe.stillFrozen(tree())
        #expect(stillFrozen.isEmpty, "after foreground: \(stillFrozen.joined(separator: "; "))")
        #expect(server.answer(timeout: 10)?.contains(" 200 ") == true, "nginx does not answer after foreground")

        seen.add(tree())
        supervise.send("terminate")
        let run = supervise.finish()
        #expect(run.status == 0, "\(run.stderr)\n\(server.errorLog)")
        #expect(run.exit["by"] as? String == "terminate" && run.exit["in_time"] as? Bool == true, "\(run.exit)")
        #expect(eventually(timeout: 5) { seen.alive.isEmpty }, "left running after supervise exited: \(seen.alive)")
        #expect(server.answer(timeout: 1) == nil, "something still answers on nginx's port \(server.port)")
        if let cgroup { #expect(!FileManager.default.fileExists(atPath: cgroup), "the child's cgroup is left: \(cgroup)") }
    }
}
