import Foundation
import Testing
import SuperviseTestSupport

/// Hostile or endless input can't grow the supervisor without bound, and never stops it
/// from answering, timing or terminating. Serialized: a flood keeps a core busy, and another
/// flood beside it (the blocking threads run several tests at once) starved the timers it checks.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(8))) struct BoundsTests {
    /// Writes a million `begin`s with 64-character IDs (refused past the 256th: `expire` each)
    /// without ever reading fd 3; before each batch of 1024 the count so far goes to the file argv[1].
    static let flood = """
        import os, sys
        for start in range(0, 1000000, 1024):
            open(sys.argv[1], "w").write(str(start))
            os.write(4, b"".join(b"begin %064d\\n" % i for i in range(start, start + 1024)))
        open(sys.argv[1], "w").write("all")
        """

    /// An aware child that reads nothing from fd 3 until the file argv[1] exists, then writes
    /// each event to the file argv[2], up to its `will-terminate`. `sed` reads in blocks: the
    /// shell's `read` takes a byte a call, and the 40,000 lines of the 150,000 moves took longer
    /// than the 5 s grace on a loaded machine (killed, 137).
    static let readsOnceTold = """
        echo "hello 1" >&4
        while [ ! -e "$1" ]; do sleep 0.05; done
        exec sed '/^will-terminate/q' <&3 >> "$2"
        """

    /// The supervisor's resident memory in KiB, from /proc.
    static func residentKB(_ pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    @Test func aChildThatFloodsBeginsAndNeverReadsIsHeldBack() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let progress = temporary.file("progress")
        let live = try LiveSupervise(["--log-level", "error", "--", "python3", "-c", Self.flood, progress])
        // Until the child has written all, or has been blocked in write(2) for 2 s.
        var last = "", since = Date()
        #expect(eventually(timeout: 120) {
            let now = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? ""
            if now != last { (last, since) = (now, Date()) }
            return now == "all" || (!now.isEmpty && Date().timeIntervalSince(since) > 2)
        }, "the child wrote all or was held back in write(2) for 2 s; it got to \(last)")
        let rss = try #require(Self.residentKB(live.process.processIdentifier))
        #expect(rss < 60 * 1024, "the supervisor holds \(rss) KiB after \(last) requests")
        #expect(last != "all", "the child is blocked writing its requests")
        #expect(live.status()?["state"] as? String == "active", "status is still answered")
        #expect(live.terminate() == 0, "the stop signal reaches the blocked child")
        let run = live.finish()
        #expect(run.timeline("note").contains { $0.contains("not reading requests until the child reads them") })
    }

    /// An `event` for a child that never reads fd 3 is refused, one line each, once over 64 KiB
    /// of events wait unread (it kept every one: 11.5 → 38.4 MB for 20,000): the supervisor's
    /// memory stays bounded, and once the child reads, every event it was sent arrives, in order,
    /// the lifecycle's too.
    @Test func eventsForAChildThatNeverReadsAreRefusedPastTheBound() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let go = temporary.file("go"), received = temporary.file("received")
        let live = try LiveSupervise(["--aware", "--keep-going", "--window", "1h", "--limit", "2h", "--log-level", "error",
                                      "--name", "w", "--", "sh", "-c", Self.readsOnceTold, "sh", go, received])
        defer { live.stop() }
        #expect(live.wait(for: "active") == "active")
        live.send("background")
        #expect(live.status()?["state"] as? String == "background")
        let supervisor = try #require(live.supervisorPID)
        let before = try #require(Self.residentKB(supervisor))
        // Each near the longest an event may be: kept, 20,000 would hold some 19 MB.
        let count = 20_000, padding = String(repeating: "x", count: 900)
        live.send((1...count).map { "event w push \($0) \(padding)" })
        #expect(live.status(timeout: 120)?["state"] as? String == "background", "every event command has run")
        let after = try #require(Self.residentKB(supervisor))
        #expect(after - before < 8 * 1024, "the supervisor grew from \(before) to \(after) KiB")

        #expect(FileManager.default.createFile(atPath: go, contents: nil), "the go file was made")
        #expect(live.terminate(timeout: 60) == 0, "\(live.log.suffix(500))")
        let run = live.finish()
        let refused = run.stderr.split(separator: "\n").filter {
            $0.contains("w: cannot deliver event 'push': over 64 KiB of events wait unread (the child is not reading fd 3)")
        }
        let lines = try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n").map(String.init)
        let delivered = lines.filter { $0.hasPrefix("event ") }
        #expect(!refused.isEmpty && !delivered.isEmpty && refused.count + delivered.count == count,
                "\(refused.count) refused, \(delivered.count) delivered")
        // In order: the launch, the first background entry, then each event with its own entry,
        // the first ones sent, and the will-terminate last.
        var expected = ["did-finish-launching foreground", "did-become-active", "will-resign-active",
                        "did-enter-background 1 3600000 7200000"]
        for number in 1...delivered.count {
            expected += ["did-enter-background \(number + 1) 3600000 7200000", "event \(number + 1) push \(number) \(padding)"]
        }
        expected.append("will-terminate 5000")
        #expect(lines == expected, "\(lines.prefix(8).map { $0.prefix(60) }) … \(lines.suffix(4).map { $0.prefix(60) })")
    }

    /// `background` and `foreground` for a child that never reads fd 3, back and forth 150,000
    /// times: past 1 MiB of events unread, a move that would send events is refused, one line
    /// each, on stdin and to a `ctl` client alike (every transition's events were kept: some
    /// 14 MB for these); none is dropped, so once the child reads, each event it was sent arrives.
    @Test func movesOfAChildThatNeverReadsAreRefusedPastTheLifecycleBound() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let go = temporary.file("go"), received = temporary.file("received"), socket = temporary.file("s")
        let live = try LiveSupervise(["--aware", "--keep-going", "--window", "1h", "--limit", "2h", "--log-level", "error",
                                      "--socket", socket, "--name", "w", "--", "sh", "-c", Self.readsOnceTold, "sh", go, received])
        defer { live.stop() }
        #expect(live.wait(for: "active") == "active")
        let supervisor = try #require(live.supervisorPID)
        let before = try #require(Self.residentKB(supervisor))
        let cycles = 150_000
        live.send(Array(repeating: ["background", "foreground"], count: cycles).flatMap { $0 })
        // Past the bound the child stays in the background: `foreground` is what would send events.
        #expect(live.status(timeout: 180)?["state"] as? String == "background", "every command has run")
        let after = try #require(Self.residentKB(supervisor))
        #expect(after - before < 8 * 1024, "the supervisor grew from \(before) to \(after) KiB")
        let refusal = "cannot bring to the foreground: over 1 MiB of events wait unread (the child is not reading fd 3)"
        let client = try Ctl.run(socket, ["foreground", "w"])
        #expect(client.status == 2 && (client.stdout + client.stderr).contains(refusal), "\(client)")

        #expect(FileManager.default.createFile(atPath: go, contents: nil), "the go file was made")
        #expect(live.terminate(timeout: 60) == 0, "\(live.log.suffix(500))")
        let run = live.finish()
        let refused = run.stderr.split(separator: "\n").count { $0.contains("stdin line") && $0.contains("w: \(refusal)") }
        let lines = try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n").map(String.init)
        let returns = lines.count { $0 == "did-become-active" } - 1
        #expect(refused > 0 && returns > 0 && refused + returns == cycles, "\(refused) refused, \(returns) delivered")
        // In order: the launch, then each move's events, the will-terminate last.
        var expected = ["did-finish-launching foreground", "did-become-active"]
        for seq in 1...returns {
            expected += ["will-resign-active", "did-enter-background \(seq) 3600000 7200000", "will-enter-foreground",
                         "did-become-active"]
        }
        expected += ["will-resign-active", "did-enter-background \(returns + 1) 3600000 7200000", "will-terminate 5000"]
        #expect(lines == expected, "\(lines.prefix(8)) … \(lines.suffix(4))")
    }

    /// A child restarted at once every time it exits: the report keeps the first and the last
    /// 100 runs before the last, and counts those between (it kept every one, growing).
    @Test func manyRestartsKeepTheRunsRecordBounded() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let started = temporary.file("started"), config = temporary.file("supervise.toml")
        try """
            restart = "always"
            restart-delay = 0
            restart-delay-max = 0
            [child.w]
            command = ["sh", "-c", "echo run >> \\"$1\\"", "sh", "\(started)"]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        func runs() -> Int { ((try? String(contentsOfFile: started, encoding: .utf8)) ?? "").count { $0 == "\n" } }
        var rss: Int?
        let page = temporary.file("run.html")
        let run = try Supervise.run(["--log-level", "error", "--config", config, "--html", page], timeout: 120) { process in
            #expect(eventually(timeout: 90) { runs() >= 400 }, "\(runs()) runs")
            rss = Self.residentKB(process.processIdentifier)
            kill(process.processIdentifier, SIGTERM)
        }
        let kept = run.child["runs"] as? [Any] ?? []
        let notRecorded = run.child["runs_not_recorded"] as? Int ?? -1
        #expect(kept.count == 201, "the first 100, the last 100 and the last run")
        let total = runs()
        #expect(total >= 400 && (total...(total + 1)).contains(kept.count + notRecorded),
                "\(total) runs started; \(kept.count) kept, \(notRecorded) not recorded")
        #expect(try #require(rss) < 60 * 1024, "the supervisor holds \(rss ?? 0) KiB")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("w: \(notRecorded) runs not recorded between the first and the last 100"))
    }

    /// Failed waits don't stop a script's commands: an endless script of them kept every one
    /// for the JUnit results. The first and the last 1,000 are kept, the rest counted.
    @Test func manyFailedWaitsKeepTheJUnitResultsBounded() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let junit = temporary.file("junit.xml")
        let script = String(repeating: "wait suspended timeout=1ms\n", count: 2 * 1000 + 37) + "terminate\n"
        let run = try Supervise.run(["--log-level", "critical", "--junit", junit, "--", "sleep", "30"],
                                    stdin: script, timeout: 120)
        #expect(run.status == 123, "\(run.stderr.suffix(500))")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("37 more stdin steps failed, not recorded (between the first and the last 1000)"))
        let listed = xml.components(separatedBy: "timed out: sleep is active").count - 1
        #expect(listed == 2 * 1000 + 1, "the child's failure quotes the first, then lists the kept waits: \(listed)")
    }

    /// Sent to the background once the flood has begun: after a fixed second, a Python slower to
    /// start on a busy machine was still idle then, was suspended, and the test failed.
    @Test func aChildHeldBackStillMeetsItsLimit() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let progress = temporary.file("progress")
        let live = try LiveSupervise(["--log-level", "error", "--window", "0.5", "--limit", "2", "--expiry-warning", "1",
                                      "--", "python3", "-c", Self.flood, progress])
        defer { live.stop() }
        #expect(eventually(timeout: 30) { !((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").isEmpty },
                "the flood never began: \(live.log)")
        live.send(["background", "wait exited timeout=20s"])
        let run = live.finish(timeout: 60)
        #expect(run.status == 124, "\(run.stderr)")
        #expect(run.violations.first?["kind"] as? String == "expiry")
        #expect((run.violations.first?["tasks"] as? [Any])?.count == 256)
    }

    @Test func anOverlongStdinLineIsRefusedInOneShortLine() throws {
        let long = String(repeating: "x", count: 4 << 20)
        let run = try Supervise.run(["--keep-going", "--", "sleep", "30"], stdin: "\(long)\nstatus\nterminate\n", timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let errors = run.stderr.split(separator: "\n").filter { $0.contains("error") }
        #expect(errors.count == 1, "\(errors.map { $0.prefix(300) })")
        #expect(errors.first?.contains("stdin line 1: 'xxxx") == true)
        #expect(errors.first?.contains("over 65536 bytes") == true)
        #expect((errors.first?.utf8.count ?? .max) < 500, "a bounded excerpt")
        #expect(run.stdout.contains("\"state\":\"active\""), "the next line still runs")
    }

    @Test(arguments: ["/dev/zero", "/dev/stdin"])
    func aConfigThatIsNotARegularFileIsRefused(path: String) throws {
        let run = try Supervise.run(["--config", path], timeout: 20)
        #expect(run.status == 2)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("not a regular file"), "\(run.stderr)")
    }

    @Test func manyBackgroundCyclesKeepTheReportBounded() throws {
        let cycles = 2 * 1000 + 600
        let script = String(repeating: "background\nwait suspended\nforeground\nwait active\n", count: cycles)
        let run = try Supervise.run(["--window", "0", "--log-level", "warning", "--", "sh", "-c", "exec cat <&3 >/dev/null"],
                                    stdin: script + "terminate\n", timeout: 300)
        #expect(run.status == 0, "\(run.stderr.prefix(2000))")
        #expect(run.report?["version"] as? Int == 2)
        let snapshots = run.child["snapshots"] as? [Any] ?? []
        #expect(snapshots.count == 2000, "the first and the last 1,000")
        #expect(run.child["snapshots_not_recorded"] as? Int == cycles - 2000)
        let lifecycle = run.timeline.filter { !["event", "request", "error"].contains($0["kind"] as? String) }
        #expect(lifecycle.count == 10_000, "the first and the last 5,000 lifecycle entries")
        let dropped = run.child["lifecycle_entries_dropped"] as? Int ?? 0
        #expect(dropped >= 5 * cycles + 3 - 10_000, "every cycle has 5: background, suspending, suspended, freeze, active")
        #expect(run.timeline("state").prefix(2) == ["active", "background"])
        #expect(run.timeline("state").suffix(2) == ["terminating", "exited"])
        #expect(run.child["messages_dropped"] as? Int ?? 0 > 0)
    }
}
