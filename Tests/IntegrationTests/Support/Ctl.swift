import Foundation
import SuperviseTestSupport
import Testing

/// What one `supervise ctl` printed and its exit status.
struct CtlResult {
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// `supervise ctl --socket PATH …`, the only way the control tests drive a supervisor.
enum Ctl {
    /// Starts `supervise ctl --socket socket ARGUMENTS`, as `user` when given (setpriv); the
    /// caller waits for it.
    static func start(_ socket: String, _ arguments: [String], as user: String? = nil) throws -> (Process, CapturedOutput) {
        let process = Process()
        let command = [Supervise.binary, "ctl", "--socket", socket] + arguments
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups"] + command
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        }
        process.standardInput = FileHandle.nullDevice
        let output = CapturedOutput(of: process)
        try process.run()
        return (process, output)
    }

    /// Runs it to its end (killed after `timeout` s, with an issue recorded).
    @discardableResult
    static func run(_ socket: String, _ arguments: [String], as user: String? = nil, timeout: Double = 30) throws -> CtlResult {
        let (process, output) = try start(socket, arguments, as: user)
        return finish(process, output, timeout: timeout)
    }

    /// Waits for a started `ctl` to end.
    static func finish(_ process: Process, _ output: CapturedOutput, timeout: Double = 30) -> CtlResult {
        if !eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("supervise ctl did not exit within \(timeout) s: \(process.arguments ?? [])")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        output.expectEnd(of: "supervise ctl \((process.arguments ?? []).joined(separator: " "))", timeout: 5)
        return CtlResult(status: process.terminationStatus, stdout: output.stdout, stderr: output.stderr)
    }
}
