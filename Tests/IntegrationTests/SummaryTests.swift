import Foundation
import Testing
import SuperviseTestSupport

/// The human summary at the end of a run, from the real binary: forced with `--summary` (stderr
/// is a pipe here), absent by default on a pipe, and there by default on a terminal.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct SummaryTests {
    /// Writes `hello` and begins task `t1` (upload), then never ends it.
    let holdsATask = "echo 'hello 1' >&4; echo 'begin t1 upload' >&4; sleep 30"

    /// The summary's lines: from its first line to the end of stderr.
    func summaryLines(_ stderr: String) -> [Substring] {
        let lines = stderr.split(separator: "\n")
        return Array(lines.drop { !$0.hasPrefix("supervise: summary of") })
    }

    @Test func forcedOnAPipeItSaysHowTheChildEndedAndWhyTheStatus() throws {
        let run = try Supervise.run(["--summary", "--name", "uploader", "--window", "0.2", "--limit", "1",
                                     "--expiry-warning", "0.5", "--", "sh", "-c", holdsATask],
                                    stdin: "sleep 0.3\nbackground\n")
        #expect(run.status == 124, "\(run.stderr)")
        let lines = summaryLines(run.stderr)
        try #require(lines.count == 3, "\(run.stderr)")
        #expect(lines[0] == "supervise: summary of 1 child")
        // In the background from the command to the kill at the 1 s limit, and a little more.
        let child = try Regex(#"^  uploader: killed for an expiry violation; 1(\.\d+)?s in the background; "#
                              + #"tasks: 1, 1 expired; violations: expiry \(upload\)$"#)
        #expect(lines[1].wholeMatch(of: child) != nil, "\(lines[1])")
        #expect(lines[2] == "supervise: exit status 124: a child was killed for a violation (uploader)")
    }

    @Test func absentByDefaultWhenStderrIsAPipe() throws {
        let run = try Supervise.run(["--", "sh", "-c", "exit 3"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("supervise: sh: exited with 3"), "\(run.stderr)")
        #expect(!run.stderr.contains("summary"), "\(run.stderr)")
    }

    @Test func noSummaryWinsOverSummary() throws {
        let run = try Supervise.run(["--summary", "--no-summary", "--", "true"])
        #expect(run.status == 0)
        #expect(!run.stderr.contains("summary"), "\(run.stderr)")
    }

    @Test(.skip("script(1)", because: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") ? nil : "util-linux's script(1) is not installed",
                in: "SummaryTests"))
    func shownByDefaultOnATerminal() throws {
        let run = try runToEnd(["/usr/bin/script", "-qec", "\(Supervise.binary) -- sh -c 'exit 3' </dev/null", "/dev/null"])
        // A terminal ends lines with "\r\n", one Character in Swift.
        let lines = run.output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("supervise: summary of 1 child"), "\(run.output)")
        #expect(lines.contains("sh: exited with 3"), "\(run.output)")
        #expect(lines.contains("supervise: exit status 3: the first child to exit non-zero, sh, exited with 3"), "\(run.output)")
        #expect(run.status == 3)
    }

    @Test(.skip("script(1)", because: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") ? nil : "util-linux's script(1) is not installed",
                in: "SummaryTests"))
    func absentOnATerminalWithTheJSONLog() throws {
        let run = try runToEnd(["/usr/bin/script", "-qec", "\(Supervise.binary) --log-format json -- true </dev/null", "/dev/null"])
        #expect(run.output.contains("\"message\""), "\(run.output)")
        #expect(!run.output.contains("summary"), "\(run.output)")
        #expect(run.status == 0)
    }

    /// `--log-level critical` asks for silence on an ordinary run: no summary either (issue 28).
    @Test(.skip("script(1)", because: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") ? nil : "util-linux's script(1) is not installed",
                in: "SummaryTests"))
    func absentOnATerminalWithALogQuieterThanNotice() throws {
        for level in ["warning", "critical"] {
            let run = try runToEnd(["/usr/bin/script", "-qec", "\(Supervise.binary) --log-level \(level) -- sh -c 'exit 3' </dev/null", "/dev/null"])
            #expect(!run.output.contains("summary"), "\(level): \(run.output)")
            #expect(run.status == 3)
        }
    }
}
