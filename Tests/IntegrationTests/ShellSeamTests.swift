import Foundation
import Testing
import SuperviseTestSupport

/// `supervise` run from a user's shell and scripts: what it leaves of the shell's own
/// descriptors, and what the command after `--` is.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ShellSeamTests {
    /// Stdin is a pipe shared with the command after supervise: reading it must not leave it
    /// non-blocking (the flag belongs to the open file description, so `cat` got EAGAIN).
    @Test func aPipedStdinIsLeftBlockingForTheNextReader() throws {
        let script = "(sleep 1; echo hello) | { \(ShellScript.quoted(Supervise.binary)) -- true; cat; }"
        let run = try ShellScript.run(script, stdin: "")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "hello\n", "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(!run.stderr.contains("Resource temporarily unavailable"), "\(run.stderr)")
    }

    /// The same at a terminal: a supervisor in the background shares the terminal's open file
    /// description with the shell and `cat`.
    @Test func aBackgroundSupervisorLeavesTheTerminalBlocking() throws {
        let session = try TerminalSession.play([
            .send("\(TerminalSession.supervise) -- sleep 30 &\n"), .prompt, .pause(1),
            .send("cat\n"), .pause(0.5), .send("typed\n"), .expect(#"typed\r\ntyped\r\n"#),
            .send("\u{04}"), .prompt,
            .send("kill %1; wait\n"), .prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
        #expect(!session.transcript.contains("Resource temporarily unavailable"), "\(session.transcript)")
    }

    /// Everything after the first `--` is the command: `supervise -- -- true` runs a program
    /// named `--`, which is not found, as under tini and dumb-init.
    @Test func aSecondDoubleDashIsTheCommandsName() throws {
        let run = try Supervise.run(["--", "--", "true"])
        #expect(run.status == 127, "\(run.stderr)")
        #expect((run.child["command"] as? [String])?.first == "--", "\(run.child)")
    }
}
