import Foundation
import Testing
import SuperviseTestSupport

/// `supervise` under a service manager that waits for `sd_notify` (systemd's `Type=notify`): a real
/// datagram socket stands in for systemd, which this machine does not run.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ServiceNotifyTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    @Test func readyStatusesAndStoppingReachAPathSocketAndChildrenDoNotInheritIt() throws {
        let listener = try NotifyListener(address: temporary.file("notify.sock"))
        let supervisor = try LiveSupervise(["--grace", "2", "--window", "0.3", "--freezer", "sigstop", "--",
                                            "sh", "-c", "echo notify=${NOTIFY_SOCKET-unset}; exec sleep 60"],
                                           environment: ["NOTIFY_SOCKET": listener.address])
        defer { supervisor.stop() }
        #expect(listener.waitFor("READY=1"), "\(listener.assignments) \(supervisor.log)")
        #expect(listener.messages.first?.hasPrefix("READY=1\n") == true, "READY comes first: \(listener.messages)")
        supervisor.send("background")
        #expect(supervisor.wait(for: "suspended") == "suspended")
        #expect(listener.waitFor("STATUS=sh: suspended"), "\(listener.assignments)")
        #expect(!listener.assignments.contains("STOPPING=1"), "nothing stops yet: \(listener.assignments)")

        supervisor.signal(SIGTERM)
        let run = supervisor.finish()
        #expect(run.status == 0, "\(run.stderr)")
        let assignments = listener.assignments
        let stopping = try #require(assignments.firstIndex(of: "STOPPING=1"), "\(assignments)")
        // Twice the grace and 5 s: systemd's stop timeout starts again at that much from now.
        #expect(assignments.dropFirst(stopping).contains("EXTEND_TIMEOUT_USEC=9000000"), "\(assignments)")
        #expect(assignments.filter { $0 == "READY=1" }.count == 1)
        #expect(run.stdout.contains("notify=unset"), "NOTIFY_SOCKET is not passed on: \(run.stdout)")
        #expect(!run.stderr.contains("service manager"), "\(run.stderr)")
    }

    @Test func anAbstractNameIsReachedToo() throws {
        let listener = try NotifyListener(address: "@supervise-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let run = try Supervise.run(["--", "true"], environment: ["NOTIFY_SOCKET": listener.address])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(eventually { listener.assignments.contains("STOPPING=1") }, "\(listener.assignments)")
        #expect(listener.assignments.first == "READY=1", "\(listener.assignments)")
        #expect(listener.assignments.contains("STATUS=true: exited"), "\(listener.assignments)")
    }

    @Test func aChildLaunchedIntoTheBackgroundIsReady() throws {
        let listener = try NotifyListener(address: temporary.file("notify.sock"))
        let supervisor = try LiveSupervise(["--launch", "background", "--window", "0.2", "--freezer", "sigstop", "--", "sleep", "60"],
                                           environment: ["NOTIFY_SOCKET": listener.address])
        defer { supervisor.stop() }
        #expect(listener.waitFor("READY=1"), "\(supervisor.log)")
        #expect(listener.waitFor("STATUS=sleep: suspended"), "\(listener.assignments)")
        #expect(!listener.assignments.contains("STATUS=sleep: active"), "it never was: \(listener.assignments)")
        #expect(supervisor.terminate() == 0, "\(supervisor.log)")
    }

    @Test func terminatingOneOfTwoChildrenIsNoStopOfTheService() throws {
        let listener = try NotifyListener(address: temporary.file("notify.sock"))
        let config = temporary.file("two.toml")
        try """
            grace = "1s"
            [child.a]
            command = ["sleep", "60"]
            [child.b]
            command = ["sleep", "60"]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let supervisor = try LiveSupervise(["--config", config], environment: ["NOTIFY_SOCKET": listener.address])
        defer { supervisor.stop() }
        #expect(listener.waitFor("READY=1"), "\(supervisor.log)")
        supervisor.send(["terminate a", "wait exited a timeout=10s"])
        #expect(listener.waitFor("STATUS=2 children: 1 active, 1 exited"), "\(listener.assignments)")
        #expect(!listener.assignments.contains("STOPPING=1"), "b still runs: \(listener.assignments)")
        supervisor.send("terminate b")
        #expect(listener.waitFor("STOPPING=1"), "\(listener.assignments)")
        #expect(listener.assignments.contains("EXTEND_TIMEOUT_USEC=7000000"), "\(listener.assignments)")
        #expect(supervisor.finish().status == 0)
    }

    @Test func aSocketNobodyListensOnIsLoggedOnceAndTheRunGoesOn() throws {
        let missing = temporary.file("nobody.sock")
        let run = try Supervise.run(["--window", "0.2", "--freezer", "sigstop", "--", "sleep", "60"],
                                    stdin: "background\nwait suspended\nforeground\nwait active\nterminate\n",
                                    environment: ["NOTIFY_SOCKET": missing])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("the service manager was not told") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.contains("READY=1") == true, "\(lines)")
    }
}
