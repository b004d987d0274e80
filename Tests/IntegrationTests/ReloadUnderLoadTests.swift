import Foundation
import Testing
import SuperviseTestSupport

/// Servers reloaded with SIGHUP through supervise while clients keep asking, on each freezer:
/// `--signal HUP=forward` and `signal NAME HUP` reach the master, which replaces its workers
/// gracefully, and no request is lost. Sent to every worker as well, SIGHUP killed gunicorn's
/// workers mid-request (issue 25).
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ReloadUnderLoadTests {
    static let options = ["--window", "0", "--grace", "10", "--signal", "HUP=forward"]

    @Test(.skip("gunicorn", because: GunicornServer.missingReason, in: "ReloadUnderLoadTests"),
          arguments: Backend.usable(in: "ReloadUnderLoadTests"))
    func gunicornReloadsWithoutLosingARequest(backend: Backend) throws {
        let server = try GunicornServer()
        defer { server.remove() }
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--name", "api"] + Self.options
                                          + ["--"] + server.command)
        defer { supervise.stop() }
        try #require(eventually(timeout: 30) { Loopback.httpStatusLine(port: server.port, timeout: 2) != nil },
                     "gunicorn never answered:\n\(supervise.log)")
        let master = Int32(try #require(supervise.status()?["pid"] as? Int))
        try #require(eventually(timeout: 20) { ProcessInspector.liveChildren(of: master).count == 2 }, "\(supervise.log)")

        let load = LoopbackLoad(port: server.port)
        // Stops the clients when a #require ends the test early (it has failed then); the end expects it.
        defer { _ = load.stop() }
        #expect(eventually(timeout: 20) { load.answered.count >= 4 }, "the load never got going: \(load.failed)")
        /// Whether the master has replaced `old` workers by two new ones that answer.
        func replaced(_ old: Set<Int32>) -> Bool {
            eventually(timeout: 20) {
                let now = ProcessInspector.liveChildren(of: master)
                return now.count == 2 && now.isDisjoint(with: old) && load.answered.contains { now.contains(Int32($0) ?? 0) }
            }
        }
        let first = ProcessInspector.liveChildren(of: master)
        supervise.signal(SIGHUP)
        #expect(replaced(first), "HUP=forward did not reload gunicorn: workers \(first), now \(ProcessInspector.liveChildren(of: master))")
        let second = ProcessInspector.liveChildren(of: master)
        supervise.send("signal api HUP")
        #expect(replaced(second), "signal api HUP did not reload gunicorn: workers \(second), now \(ProcessInspector.liveChildren(of: master))")

        #expect(load.stop(), "the load's clients did not stop")
        #expect(load.failed.isEmpty, """
            \(load.failed.count) of \(load.failed.count + load.answered.count) requests failed across two reloads: \
            \(load.failed.prefix(3))\n\(supervise.log)
            """)
        #expect(supervise.terminate() == 0, "\(supervise.log)")
    }

    @Test(.skip("nginx", because: NginxServer.missingReason, in: "ReloadUnderLoadTests"),
          arguments: Backend.usable(in: "ReloadUnderLoadTests"))
    func nginxReloadsWithoutLosingARequestAndOnlyItsMasterIsSentHUP(backend: Backend) throws {
        let server = try NginxServer(daemon: false)
        defer { server.remove() }
        let supervise = try LiveSupervise(["--freezer", backend.rawValue, "--name", "nginx"] + Self.options
                                          + ["--"] + server.command)
        defer { supervise.stop() }
        try #require(eventually(timeout: 30) { server.answer(timeout: 1) != nil },
                     "nginx never answered:\n\(supervise.log)\n\(server.errorLog)")
        let master = Int32(try #require(supervise.status()?["pid"] as? Int))
        try #require(eventually(timeout: 20) { ProcessInspector.liveChildren(of: master).count == 2 }, "\(server.errorLog)")

        let load = LoopbackLoad(port: server.port, clients: 2, requests: 5_000, seconds: 30)
        // Stops the clients when a #require ends the test early (it has failed then); the end expects it.
        defer { _ = load.stop() }
        #expect(eventually(timeout: 20) { load.answered.count >= 4 }, "the load never got going: \(load.failed)")
        func replaced(_ old: Set<Int32>) -> Bool {
            eventually(timeout: 20) {
                let now = ProcessInspector.liveChildren(of: master)
                return now.count == 2 && now.isDisjoint(with: old)
            }
        }
        let first = ProcessInspector.liveChildren(of: master)
        supervise.signal(SIGHUP)
        #expect(replaced(first), "HUP=forward did not reload nginx:\n\(server.errorLog)")
        let second = ProcessInspector.liveChildren(of: master)
        supervise.send("signal nginx HUP")
        #expect(replaced(second), "signal nginx HUP did not reload nginx:\n\(server.errorLog)")
        let answeredBefore = load.answered.count
        #expect(eventually(timeout: 10) { load.answered.count > answeredBefore }, "nginx answers after its reloads")

        #expect(load.stop(), "the load's clients did not stop")
        #expect(load.failed.isEmpty, "\(load.failed.count) requests failed: \(load.failed.prefix(3))\n\(server.errorLog)")
        // nginx logs each signal a process of it receives: the master's reconfiguring, a
        // worker's "ignoring".
        let received = server.fullErrorLog.split(separator: "\n").filter { $0.contains("signal 1 (SIGHUP) received") }
        #expect(received.count == 2 && received.allSatisfy { $0.contains("reconfiguring") },
                "the master alone gets each SIGHUP:\n\(received.joined(separator: "\n"))")
        #expect(supervise.terminate() == 0, "\(supervise.log)")
    }
}
