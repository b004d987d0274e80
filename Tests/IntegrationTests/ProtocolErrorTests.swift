import Foundation
import Testing
import SuperviseTestSupport

/// Malformed requests are answered with `error` and change nothing.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ProtocolErrorTests {
    @Test func malformedRequestsAreAnsweredAndTheSupervisorKeepsGoing() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let log = directory.appendingPathComponent("events.log").path
        let long = String(repeating: "x", count: 2000)
        let requests = ["fly away", "begin bad!id", "end nope", "hello 2", "done x", "begin \(long)", "begin t9 still fine"]
        let run = try Supervise.run(["--aware", "--", Supervise.worker("aware-worker.sh")],
                                    stdin: "wait active timeout=20s\nsleep 0.5\nstatus\nterminate\n",
                                    environment: ["WORKER_LOG": log, "WORKER_REQUESTS": requests.joined(separator: "|")])
        let events = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(events.contains("error unknown-request fly away"))
        #expect(events.contains("error bad-id begin bad!id"))
        #expect(events.contains("error unknown-id end nope"))
        #expect(events.contains("error bad-version hello 2"))
        #expect(events.contains("error stale-done done x"))
        let tooLong = events.first { $0.hasPrefix("error line-too-long ") }
        #expect(tooLong != nil)
        #expect((tooLong?.utf8.count ?? 0) <= 200 + "error line-too-long ".utf8.count)
        #expect(run.stdout.contains("\"id\":\"t9\""), "a good request after the bad ones still counts")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.timeline("error").count == 6)
    }
}

/// What a child writes can't forge or hide a line of the supervisor's log.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct LogInjectionTests {
    @Test(arguments: ["text", "json"])
    func controlCharactersInARequestAreEscapedInTheLog(format: String) throws {
        let run = try Supervise.run(["--log-format", format, "--", "sh", "-c",
                                     "printf 'nonsense \\033[2J\\007\\rsupervise: x: suspended\\n' >&4; sleep 0.3"])
        let refused = run.stderr.split(separator: "\n").filter { $0.contains("nonsense") }
        #expect(refused.count == 1, "\(run.stderr)")
        #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B || $0 == "\u{07}" || $0 == "\r" }, "\(run.stderr)")
        #expect(refused.first?.contains("\\u001b[2J\\u0007\\rsupervise: x: suspended") == true, "\(refused)")
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("supervise: x:") })
    }
}

/// A refused stdin command is quoted as a bounded excerpt, whatever its length.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct RefusedCommandTests {
    @Test func aLongRefusedCommandIsQuotedInShort() throws {
        let name = String(repeating: "x", count: 5_000)
        let run = try Supervise.run(["--", "sleep", "0.3"], stdin: "background \(name)\n")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.contains("stdin line 1") }, "\(run.stderr)")
        #expect(line.utf8.count < 400, "\(line.utf8.count) bytes")
        #expect(line.contains("no child named"))
    }
}

/// Misbehaving children don't stall the supervisor.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct FloodTests {
    @Test func floodingChildDoesNotStallCommandsOrTimers() throws {
        // `yes` writes "begin a\nend a\n" as fast as the pipe takes it.
        let run = try Supervise.run(["--window", "0.3", "--log-level", "warning", "--", "sh", "-c", "yes 'begin a\nend a' >&4"],
                                    stdin: "sleep 0.5\nstatus\nbackground\nwait suspended timeout=10s\nforeground\nwait active\nterminate\n",
                                    timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        // About 2 s of script; a supervisor stalled by the flood runs into the 30 s timeout. A
        // debug build beside seven other tests on a slow 2-core VM took 17 s, past a bound of 15.
        #expect(run.elapsed < 25)
        #expect(run.stdout.contains("\"state\":\"active\""), "status answered during the flood")
        #expect(run.timeline("state").contains("suspended"), "the window timer fired during the flood")
        #expect((run.child["messages_dropped"] as? Int ?? 0) > 0, "the timeline keeps the first 10,000 messages only")
        #expect((run.child["tasks_not_recorded"] as? Int ?? 0) > 0 || run.tasks.count < 100_001)
    }

    @Test func childThatNeverReadsItsEventsDoesNotBlockTheSupervisor() throws {
        // Every bad request is answered with an error event the child never reads.
        let run = try Supervise.run(["--log-level", "error", "--", "sh", "-c", "yes bogus >&4"],
                                    stdin: "sleep 1\nstatus\nbackground\nforeground\nterminate\n", timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.elapsed < 15)
        #expect(run.stdout.contains("\"state\":\"active\""))
        #expect((run.child["errors_dropped"] as? Int ?? 0) > 0, "error events over the backlog bound are dropped and counted")
        #expect(run.timeline("state") == ["active", "background", "active", "terminating", "exited"],
                "lifecycle commands still act while the child's events pile up")
    }

    @Test func lifecycleEventsQueuedBehindErrorsAreNeverDropped() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let file = temporary.file("events")
        // Flood errors without reading for a second, then read everything the supervisor queued.
        let script = "yes bogus >&4 & sleep 1; kill $!; timeout 2 cat <&3 > \(file); exit 0"
        let run = try Supervise.run(["--log-level", "error", "--", "sh", "-c", script],
                                    stdin: "sleep 0.5\nbackground\nforeground\n", timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let lifecycle = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
            .split(separator: "\n").filter { !$0.hasPrefix("error ") }.map(String.init)
        #expect(lifecycle == ["did-finish-launching foreground", "did-become-active", "will-resign-active",
                              "did-enter-background 1 5000 30000", "will-enter-foreground", "did-become-active"])
        #expect((run.child["errors_dropped"] as? Int ?? 0) > 0)
    }
}
