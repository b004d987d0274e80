import Foundation
import Testing
import SuperviseTestSupport

/// The supervisor's own log on stderr, read from the real binary: one line per exit, signals
/// by name, the child on every line about it, and `--log-time`.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct SupervisorLogTests {
    /// The lines of a text log that say how a child's run ended.
    func exitLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains(": exited") || $0.contains(": killed by") }
    }

    /// The JSON log's objects, one a line.
    func objects(_ stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test func anExitIsOneLineSayingHow() throws {
        let run = try Supervise.run(["--", "sh", "-c", "exit 3"])
        #expect(run.status == 3)
        #expect(exitLines(run.stderr) == ["supervise: sh: exited with 3"], "\(run.stderr)")
    }

    /// A terminal sends SIGWINCH at each resize: forwarded without a line at the default level,
    /// while a forwarded SIGQUIT still gets one (issue 28).
    @Test func aResizeIsForwardedWithoutALogLine() throws {
        for level in ["info", "debug"] {
            let run = try Supervise.run(["--log-level", level, "--control", "none", "--", "sleep", "30"]) { process in
                let child = SupervisedChild(backend: .sigstop, supervisorPID: process.processIdentifier)
                #expect(eventually { child.pid != nil })
                for _ in 0..<3 { kill(process.processIdentifier, SIGWINCH) }
                Thread.sleep(forTimeInterval: 0.3)
                kill(process.processIdentifier, SIGTERM)
            }
            let resizes = run.stderr.split(separator: "\n").filter { $0.contains("SIGWINCH: forwarding") }
            #expect(level == "info" ? resizes.isEmpty : !resizes.isEmpty, "\(level): \(run.stderr)")
            #expect(run.timeline("note").contains { $0.hasPrefix("forwarded SIGWINCH") }, "forwarded all the same")
        }
    }

    @Test func aSignalledExitNamesTheSignal() throws {
        let run = try Supervise.run(["--", "sh", "-c", "kill -KILL $$"])
        #expect(run.status == 137)
        #expect(exitLines(run.stderr) == ["supervise: sh: killed by SIGKILL (9)"], "\(run.stderr)")
    }

    /// A terminated child: the signal is named in the exit line, and no line anywhere says `signal N`.
    @Test func signalsAreNamedEverywhere() throws {
        let run = try Supervise.run(["--grace", "5", "--", "sleep", "30"], stdin: "terminate\n")
        #expect(run.status == 0)
        #expect(exitLines(run.stderr) == ["supervise: sleep: killed by SIGTERM (15)"], "\(run.stderr)")
        let bare = try Regex(#"signal \d"#)
        #expect(!run.stderr.contains(bare), "\(run.stderr)")
        #expect(!run.timeline.contains { ($0["text"] as? String)?.contains(bare) == true }, "\(run.timeline)")
    }

    @Test func jsonStartedAndExitedLinesNameTheChild() throws {
        let run = try Supervise.run(["--log-format", "json", "--", "sh", "-c", "exit 0"])
        #expect(run.status == 0)
        let lines = try objects(run.stderr)
        let started = lines.filter { ($0["message"] as? String)?.hasPrefix("started pid ") == true }
        let exited = lines.filter { ["exited", "exited with 0"].contains($0["message"] as? String) }
        #expect(started.count == 1 && started.allSatisfy { $0["child"] as? String == "sh" }, "\(run.stderr)")
        #expect(exited.count == 1 && exited.allSatisfy { $0["message"] as? String == "exited with 0" }, "\(run.stderr)")
        #expect(exited.allSatisfy { $0["child"] as? String == "sh" }, "\(run.stderr)")
    }

    /// Parses an RFC 3339 UTC stamp with milliseconds, or nil.
    func date(_ text: String) -> Date? {
        guard text.count == 24, text.hasSuffix("Z") else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    @Test func logTimeBeginsEveryTextLine() throws {
        let before = Date()
        let run = try Supervise.run(["--log-time", "--", "sh", "-c", "exit 0"])
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count >= 3, "\(run.stderr)")
        for line in lines {
            let stamp = try #require(date(String(line.prefix(24))), "\(line)")
            #expect(line.dropFirst(24).hasPrefix(" supervise: "), "\(line)")
            #expect(stamp.timeIntervalSince(before) > -1 && stamp.timeIntervalSinceNow < 1, "\(line)")
        }
        #expect(run.stderr.contains(" supervise: sh: exited with 0\n"), "\(run.stderr)")
    }

    @Test func logTimeLeadsEveryJSONLine() throws {
        let run = try Supervise.run(["--log-time", "--log-format", "json", "--", "sh", "-c", "exit 0"])
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count >= 3, "\(run.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"time":""#) }, "\(run.stderr)")
        for object in try objects(run.stderr) {
            #expect(date(object["time"] as? String ?? "") != nil && object["t_ms"] is Double, "\(object)")
        }
    }

    @Test func withoutLogTimeNoLineHasOne() throws {
        let text = try Supervise.run(["--", "true"]).stderr
        #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("supervise: ") }, "\(text)")
        let json = try Supervise.run(["--log-format", "json", "--", "true"]).stderr
        #expect(try objects(json).allSatisfy { $0["time"] == nil }, "\(json)")
    }
}
