import Foundation
import Testing
import SuperviseTestSupport

/// `supervise` in an interactive bash doing job control around it, on a real pseudo-terminal
/// (docs/cli.md, "Terminals and shells"): Ctrl-Z and `fg` work as without a supervisor, a
/// supervisor started with `&` leaves the terminal to the shell, the terminal is given back when
/// the run ends, and a child that wanted the terminal under `--control stdin` gets a hint.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct TerminalShellTests {
    let temporary = TemporaryDirectory()
    var reportPath: String { temporary.file("report.json") }
    static let supervise = TerminalSession.supervise
    static let prompt = TerminalSession.Step.prompt

    /// The gaps of the report written at `reportPath`.
    func gaps() -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: reportPath),
              let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            Issue.record("no report at \(reportPath)")
            return []
        }
        return report["supervisor_gaps"] as? [[String: Any]] ?? []
    }

    /// `--control none` with `cat` holding the terminal: Ctrl-Z stops cat and the supervisor, the
    /// prompt comes back; `fg` gives cat the terminal again and it reads. The time stopped is a
    /// gap of the report although no timer of the supervisor was armed.
    @Test func ctrlZAndFgWorkWithAChildHoldingTheTerminal() throws {
        let session = try TerminalSession.play([
            .send("\(Self.supervise) --report \(reportPath) --control none -- cat\n"), .pause(1),
            .send("one\n"), .expect(#"one\r\none\r\n"#),
            .send("\u{1A}"), .expect(#"Stopped"#), Self.prompt,
            .pause(1),
            // The supervisor's lines about the continue come before cat's echo is looked for.
            .send("fg\n"), .expect("continued after"), .expect("its main process was continued"),
            .send("two\n"), .expect(#"two\r\ntwo\r\n"#),
            .send("\u{04}"), Self.prompt,
            .send("echo status=$?\n"), .expect("status=0"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
        let gaps = gaps()
        #expect(gaps.count == 1 && (gaps.first?["gap_ms"] as? Double ?? 0) >= 800, "\(gaps)\n\(session.transcript)")
    }

    /// `--control stdin` (the supervisor's group holds the terminal): Ctrl-Z stops the job, and
    /// after `fg` a suspended child is still suspended, on every freezer (on sigstop a stray
    /// SIGCONT would thaw it; `status` looks at the kernel first).
    @Test(arguments: Backend.usable(in: "TerminalShellTests"))
    func ctrlZAndFgLeaveASuspendedChildSuspended(backend: Backend) throws {
        let session = try TerminalSession.play([
            .send("\(Self.supervise) --freezer \(backend.rawValue) --window 0 --name idle -- sleep 30\n"), .expect("idle: active"),
            .send("background idle\n"), .send("wait suspended idle\n"), .expect("idle: suspended"),
            .send("\u{1A}"), .expect(#"Stopped"#), Self.prompt,
            .send("fg\n"), .expect("continued after"),
            .send("status\n"), .expect(#""state":"suspended""#),
            .send("\u{03}"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
    }

    /// The time stopped moves the deadlines as any gap does, once: a window that would have ended
    /// while the supervisor was stopped has what was left of it after `fg`.
    @Test func theTimeStoppedMovesTheWindowOnce() throws {
        let session = try TerminalSession.play([
            .send("\(Self.supervise) --report \(reportPath) --window 3 --name idle -- sleep 30\n"), .expect("idle: active"),
            .send("background idle\n"), .expect("idle: background"),
            .send("\u{1A}"), .expect(#"Stopped"#), Self.prompt,
            .pause(4),
            .send("fg\n"), .send("status\n"), .expect(#""state":"background""#),
            .send("\u{03}"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
        let gaps = gaps()
        #expect(gaps.count == 1 && (gaps.first?["gap_ms"] as? Double ?? 0) >= 3500, "\(gaps)\n\(session.transcript)")
    }

    /// As pid 1 (here of a PID namespace) nothing would continue a stopped job: a Ctrl-Z that
    /// stopped the child is undone, and it goes on reading.
    @Test func asPID1ACtrlZDoesNotLeaveTheChildStopped() throws {
        let session = try TerminalSession.play([
            .send("unshare --pid --fork \(Self.supervise) --control none -- cat\n"), .pause(1),
            .send("\u{1A}"), .pause(1),
            .send("after\n"), .expect(#"after\r\nafter\r\n"#),
            .send("\u{04}"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
    }

    /// Started with `&`, the supervisor leaves the terminal to the shell, which goes on; its
    /// child runs to its end. Its start-up lines are silenced: printed after the prompt, they
    /// would hide it (as in ShellSeamTests).
    @Test func aBackgroundSupervisorDoesNotTakeTheTerminal() throws {
        let session = try TerminalSession.play([
            .send("\(Self.supervise) --log-level warning --control none -- sleep 2 &\n"), Self.prompt, .pause(0.5),
            .send("echo alive\n"), .expect(#"\nalive\r\n"#), Self.prompt,
            .send("wait; echo done=$?\n"), .expect("done=0"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
    }

    /// After the run the terminal is the supervisor's group's again, however the child ended or
    /// failed to start: the script behind it reads.
    @Test(arguments: ["true", #"sh -c "kill -KILL \$\$""#, "/nonexistent/command"])
    func theTerminalIsGivenBackAfterTheRun(child: String) throws {
        let session = try TerminalSession.play([
            .send("sh -c '\(Self.supervise) --control none -- \(child); read x; echo \"got $x\"'\n"), .pause(1),
            .send("typed\n"), .expect("got typed"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
        #expect(!session.transcript.contains("Stopped"), "\(session.transcript)")
    }

    /// Under `--control stdin` at a terminal, a shell that exits at once on /dev/null, and a
    /// program reading /dev/tty that the terminal stops, each get one line saying how to run them.
    @Test(arguments: ["bash", "cat /dev/tty"])
    func aChildThatWantedTheTerminalGetsAHint(child: String) throws {
        let session = try TerminalSession.play([
            .send("\(Self.supervise) -- \(child)\n"), .expect("run it with --control none"), .pause(0.5),
            .send("\u{03}"), Self.prompt,
        ])
        #expect(session.met, "\(session.problem)\n\(session.transcript)")
    }
}
