import Foundation
import Testing
import SuperviseTestSupport

/// A `/bin/sh -c` script run to its end with `stdin` as its input, for tests that must set the
/// scene (a cgroup, a user, a namespace) in the shell that then `exec`s supervise.
enum ShellScript {
    /// `word` quoted for the shell: `'it'\''s'`.
    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs `script`; after `timeout` seconds records an issue and kills it. Its output is
    /// waited for at most `drain` seconds after it exits.
    static func run(_ script: String, stdin: String, timeout: Double = 30, drain: Double = 5) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        let input = Pipe.closedOnExec()
        process.standardInput = input
        let output = CapturedOutput(of: process)
        try process.run()
        input.fileHandleForWriting.writeUnlessReaderEnded(stdin)
        try input.fileHandleForWriting.close()
        if !eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("supervise did not exit within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        output.expectEnd(of: "the script", timeout: drain)
        return (process.terminationStatus, output.stdout, output.stderr)
    }
}
