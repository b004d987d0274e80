import Foundation
import Testing
import SuperviseTestSupport

/// `supervise` run from a user's shell and scripts: what it leaves of the shell's own
/// descriptors, and what the command after `--` is.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ShellSeamTests {
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
            // Its start-up lines are silenced: printed after the prompt, they would hide it.
            .send("\(TerminalSession.supervise) --log-level warning -- sleep 30 &\n"), .prompt, .pause(1),
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

    /// `nohup supervise …` survives a hangup, and so do its children (they start with SIGHUP
    /// ignored, as under plain `nohup`); a signal it does take still ends the run.
    @Test func nohupKeepsSIGHUPIgnoredByTheSupervisorAndItsChildren() throws {
        try expectLeftIgnored(SIGHUP, launcher: ["nohup", Supervise.binary])
    }

    /// A job a script starts in the background has SIGINT ignored (the shell's rule for jobs
    /// without job control, which `trap '' INT` before the exec plays): a Ctrl-C meant for the
    /// foreground must not end it.
    @Test func aBackgroundJobOfAScriptKeepsSIGINTIgnored() throws {
        try expectLeftIgnored(SIGINT, launcher: ["sh", "-c", "trap '' INT; exec \"$0\" \"$@\"", Supervise.binary])
    }

    /// Mapped with `--signal`, an inherited ignored signal is taken after all.
    @Test func aSignalMappingTakesAnIgnoredSignal() throws {
        let run = try Self.launch(["nohup", Supervise.binary, "--signal", "HUP=terminate"], thenSend: SIGHUP)
        #expect(run.childIgnored == false && run.aliveAfterSignal == false, "\(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
    }

    private func expectLeftIgnored(_ signal: Int32, launcher: [String]) throws {
        let run = try Self.launch(launcher, thenSend: signal)
        #expect(run.childIgnored == true, "the child starts with \(signal) ignored: \(run.stderr)")
        #expect(run.aliveAfterSignal == true, "\(run.stderr)")
        #expect(run.stderr.contains("ignored when supervise started"), "\(run.stderr)")
        #expect(run.status == 0, "SIGTERM still terminates: \(run.stderr)")
    }

    /// Starts `launcher` (ending in the supervise binary) with `-- sleep 30`, sends `signal` to the
    /// supervisor once its child runs, looks whether both are still there, then sends SIGTERM.
    private static func launch(_ launcher: [String], thenSend signal: Int32) throws
        -> (status: Int32, stderr: String, childIgnored: Bool?, aliveAfterSignal: Bool)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = launcher + ["--control", "none", "--", "sleep", "30"]
        let output = CapturedOutput(of: process)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let pid = process.processIdentifier  // nohup and sh exec the supervisor
        var childIgnored: Bool?
        let started = eventually(timeout: 10) {
            guard let child = SupervisedChild(backend: .sigstop, supervisorPID: pid).pid,
                  ProcessInspector.commandLine(child).hasPrefix("sleep") else { return false }
            childIgnored = ProcessInspector.ignores(signal, child)
            return true
        }
        #expect(started, "the child was started")
        kill(pid, signal)
        let ended = eventually(timeout: 1) { ProcessInspector.snapshot(pid)?.isDead ?? true }
        kill(pid, SIGTERM)
        if !eventually(timeout: 15, { !process.isRunning }) { Issue.record("supervise did not end after SIGTERM") }
        process.waitUntilExit()
        #expect(output.waitForEnd(timeout: 5), "its output ended")
        return (process.terminationStatus, output.stderr, childIgnored, !ended)
    }
}
