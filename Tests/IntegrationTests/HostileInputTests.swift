import Foundation
import SuperviseTestSupport
import Testing

/// What a hostile user, socket client or child could do to the supervisor itself: durations at
/// the longest accepted, and children that close their protocol channels.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct HostileInputTests {
    let temporary = TemporaryDirectory()
    /// The longest duration accepted, to the nanosecond: `Int64.max` ns (`DurationParser.maximum`).
    static let longest = "9223372036.854775807"

    /// Each source of a duration at the longest: the run ends as it would with a short one.
    @Test func theLongestDurationsDoNotCrashTheSupervisor() throws {
        let long = Self.longest
        let windowed = try Supervise.run(["--window", long, "--limit", long, "--", "true"])
        #expect(windowed.status == 0, "\(windowed.stderr)")
        // The window and the limit run in the background; foreground ends them, terminate ends the run.
        let background = try Supervise.run(["--window", long, "--limit", long, "--grace", long, "--freeze-timeout", long,
                                            "--", "sleep", "30"],
                                           stdin: "background\nsleep 200ms\nforeground\nterminate\n")
        #expect(background.status == 143 || background.status == 0, "\(background.status): \(background.stderr)")
        #expect(background.report != nil, "the report was written")
        let waited = try Supervise.run(["--", "sleep", "0.3"], stdin: "wait exited all timeout=\(long)s\nsleep \(long)s\n")
        #expect(waited.status == 0, "\(waited.stderr)")
        let config = temporary.file("restart.toml")
        try """
            [child.a]
            command = ["sh", "-c", "exit 1"]
            restart = "on-failure"
            restart-delay = "\(long)s"
            restart-delay-max = "\(long)s"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        // The first run fails at once: its restart, ~292 years away, is scheduled, then SIGINT ends the run.
        let restart = try Supervise.run(["--config", config]) { process in
            Thread.sleep(forTimeInterval: 1)
            process.interrupt()
        }
        #expect(restart.status != 132 && restart.report != nil, "\(restart.status): \(restart.stderr)")
    }

    @Test func aSocketClientsLongestWaitDoesNotCrashTheSupervisor() throws {
        let socket = temporary.file("s")
        let live = try LiveSupervise(["--control", "none", "--socket", socket, "--", "sleep", "30"])
        defer { live.stop() }
        #expect(eventually { FileManager.default.fileExists(atPath: socket) })
        let (waiting, output) = try Ctl.start(socket, ["wait", "exited", "all", "timeout=\(Self.longest)s"])
        Thread.sleep(forTimeInterval: 0.3)
        // ctl's own deadline: the longest --timeout, after a wait's longest time.
        let status = try Ctl.run(socket, ["--timeout", Self.longest, "status"])
        #expect(status.status == 0, "\(status)")
        let (held, heldOutput) = try Ctl.start(socket, ["--timeout", Self.longest, "wait", "exited", "all",
                                                        "timeout=\(Self.longest)s"])
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try Ctl.run(socket, ["terminate", "all"]).status == 0, "the supervisor still answers")
        #expect(Ctl.finish(held, heldOutput).status == 0, "a ctl with the longest --timeout and wait")
        let waited = Ctl.finish(waiting, output)
        #expect(waited.status == 0, "\(waited)")
        #expect(live.finish().status == 0, "terminated on request: a clean end")
    }
}
