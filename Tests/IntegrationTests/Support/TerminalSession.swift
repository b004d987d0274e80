import Foundation
import Testing
import SuperviseTestSupport

/// An interactive bash on a real pseudo-terminal, driven step by step as a person types
/// (`Workers/terminal-session.py`): job control, the terminal's foreground group and its modes
/// are the real ones.
enum TerminalSession {
    /// One thing done at the terminal.
    enum Step {
        /// Types the text (`\n` ends a line; "\u{1A}" is Ctrl-Z).
        case send(String)
        /// Waits until the screen since the last `expect` matches the regular expression.
        case expect(String)
        /// Waits this many seconds.
        case pause(Double)
        /// Waits for the next prompt.
        static let prompt = Step.expect(#"PROMPT\$ $"#)

        var argument: String {
            switch self {
            case .send(let text): "send:" + text.unicodeScalars.map { $0.isASCII && $0.value >= 32 && $0 != "\\" ? String($0) : String(format: "\\x%02x", $0.value) }.joined()
            case .expect(let pattern): "expect:" + pattern
            case .pause(let seconds): "sleep:\(seconds)"
            }
        }
    }

    /// Plays `steps` (after the first prompt); whether every step was met, and the transcript.
    static func play(_ steps: [Step], timeout: Double = 90) throws -> (met: Bool, transcript: String, problem: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Supervise.worker("terminal-session.py")] + ([Step.prompt] + steps).map(\.argument)
        process.standardInput = FileHandle.nullDevice
        let output = CapturedOutput(of: process)
        try process.run()
        if !eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("the terminal session did not end within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let drained = output.waitForEnd(timeout: 5)
        #expect(drained, "the terminal session's output ended")
        return (process.terminationStatus == 0, output.stdout, output.stderr)
    }

    /// `supervise` quoted for a command line typed at the prompt.
    static var supervise: String { ShellScript.quoted(Supervise.binary) }
}
