import Foundation
import Testing
import SuperviseTestSupport

/// What the user types at a terminal under `--control stdin` may be meant for a child that reads
/// `/dev/tty` (a password prompt, stopped by the terminal): supervise reads it as a command, and
/// its log must not quote it at any level; a line from a pipe keeps being quoted (issue 24, item 3).
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct TerminalSecretTests {
    let temporary = TemporaryDirectory()
    static let secret = "hunter2-Sesame"

    /// A child stopped reading `/dev/tty`; the secret typed as a line, as an option of `wait` and as
    /// a NAME, at `--log-level error`. The error lines are those docs/cli.md shows, to the byte.
    @Test func aLineTypedAtTheTerminalIsNotQuotedInTheLog() throws {
        let log = temporary.file("stderr.log")
        let session = try TerminalSession.play([
            .send("\(TerminalSession.supervise) --log-level error --name prompt -- cat /dev/tty 2>\(log)\n"),
            .pause(1),
            .send("\(Self.secret)\n"), .send("wait active \(Self.secret)=1\n"), .send("foreground \(Self.secret)x\n"),
            .send("status\n"), .expect(#""name":"prompt""#),
            .send("\u{03}"), TerminalSession.Step.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
        let errors = try String(contentsOfFile: log, encoding: .utf8)
        #expect(!errors.contains("hunter2") && !errors.contains("Sesame"), "\(errors)")
        let lines = Set(errors.split(separator: "\n").map(String.init))
        #expect(lines.contains("supervise: error: stdin line 2: ignored a line from the terminal: unknown option: "
            + "expected wait STATE [NAME] [timeout=DURATION]"), "\(errors)")
        let documented = try DocErrorLineTests.documentedLines()
            .filter { $0.contains("from the terminal") || $0.contains("no child has that name") }
        #expect(documented.count == 2, "\(documented)")
        for line in documented { #expect(lines.contains(line), "docs/cli.md shows \(line)\nthe binary printed:\n\(errors)") }
    }

    @Test func aLineFromAPipeIsStillQuoted() throws {
        let run = try Supervise.run(["--keep-going", "--log-level", "error", "--", "sleep", "1"],
                                    stdin: "\(Self.secret)\nforeground \(Self.secret)x\n", timeout: 20)
        #expect(run.stderr.contains("stdin line 1: ignored '\(Self.secret)': unknown command '\(Self.secret)'"),
                "\(run.stderr)")
        #expect(run.stderr.contains("stdin line 2: 'foreground \(Self.secret)x': no child named '\(Self.secret)x'"),
                "\(run.stderr)")
    }
}
