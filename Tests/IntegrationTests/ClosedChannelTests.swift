import Foundation
import SuperviseTestSupport
import Testing

/// A child that closes its protocol channels or its output: epoll reports the closed end whatever
/// the mask, and an idle supervisor must still make no system calls (no spinning), on every freezer,
/// in the foreground and while the child is suspended.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ClosedChannelTests {
    let temporary = TemporaryDirectory()

    /// The supervisor's CPU time (user + system, clock ticks) spent over `seconds` of idling.
    static func cpuTicks(of pid: Int32, over seconds: Double) -> Int? {
        func ticks() -> Int? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // utime and stime are fields 14 and 15; fields[0] is field 3 (the state).
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
            return user + system
        }
        guard let before = ticks() else { return nil }
        Thread.sleep(forTimeInterval: seconds)
        return ticks().map { $0 - before }
    }

    /// Whether the supervisor's closer child has closed the descriptors `closed` (the supervisor
    /// sees the hangup at once).
    static func closerHasClosed(_ closed: [String], under supervisor: Int32) -> Bool {
        ProcessInspector.descendants(of: supervisor).contains { process in
            ProcessInspector.commandLine(process.pid).contains("channel-closer.py")
                && closed.allSatisfy { !FileManager.default.fileExists(atPath: "/proc/\(process.pid)/fd/\($0)") }
        }
    }

    @Test(arguments: Backend.usable(in: "ClosedChannelTests"), [["3"], ["4"], ["1", "2"], ["3", "4"]])
    func aChildClosingItsChannelsLeavesTheSupervisorIdle(backend: Backend, closed: [String]) throws {
        let config = temporary.file("closer.toml")
        // Two children, so their output goes through the supervisor's pipes (name prefixes).
        try """
            window = "0"
            grace = "0.5"
            [child.closer]
            command = ["\(Supervise.worker("channel-closer.py"))", \(closed.map { "\"\($0)\"" }.joined(separator: ", "))]
            [child.other]
            command = ["sleep", "60"]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--config", config])
        defer { live.stop() }
        #expect(eventually(interval: 0.05) { Self.closerHasClosed(closed, under: live.pid) }, "\(backend) closed \(closed): \(live.log)")
        // A spinning loop burns a whole core: ~200 ticks in 2 s. Idle is 0; 20 is generous.
        let foreground = try #require(Self.cpuTicks(of: live.pid, over: 2))
        #expect(foreground < 20, "\(backend) closed \(closed): \(foreground) ticks in 2 s in the foreground")
        live.send(["background closer", "wait suspended closer timeout=10s", "status"])
        #expect(live.nextStatus(timeout: 20)?.state == "suspended", "the closer's line comes first: \(live.log)")
        let suspended = try #require(Self.cpuTicks(of: live.pid, over: 2))
        #expect(suspended < 20, "\(backend) closed \(closed): \(suspended) ticks in 2 s while suspended")
        live.send("terminate all")
        let run = live.finish()
        let closer = (run.report?["children"] as? [[String: Any]])?.first { $0["name"] as? String == "closer" }
        let notes = (closer?["timeline"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        if closed.contains("3") {
            #expect(notes.contains { $0.contains("closed its events channel (fd 3)") }, "\(notes)")
        }
    }

    /// A confined child (`--user`) that closes fd 3 leaves the supervisor as idle: the closed end
    /// is the supervisor's own pipe, whoever the child runs as.
    @Test(.skip("--user", because: TestUser.missingReason, in: "ClosedChannelTests"))
    func aConfinedChildClosingItsEventsChannelLeavesTheSupervisorIdle() throws {
        let live = try LiveSupervise(["--user", TestUser.name, "--window", "0", "--name", "closer", "--",
                                      "sh", "-c", "exec 3>&-; exec sleep 60"])
        defer { live.stop() }
        #expect(live.wait(for: "active") == "active")
        live.send("background")
        #expect(live.wait(for: "suspended") == "suspended")
        let suspended = try #require(Self.cpuTicks(of: live.pid, over: 2))
        #expect(suspended < 20, "\(suspended) ticks in 2 s while a confined child that closed fd 3 is suspended")
        #expect(live.terminate() != nil, "the run ended")
    }
}
