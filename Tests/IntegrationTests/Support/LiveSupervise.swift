import Foundation
import Testing

/// A running `supervise` the test drives one command at a time: its stdin stays open, and
/// `status` lines are read back from its stdout as the test needs them.
final class LiveSupervise {
    let process = Process()
    private let input = Pipe(), output = PipeCollector(), errors = PipeCollector()
    private let directory = Supervise.temporaryDirectory()
    private let start = Date()
    private var reportPath: String { directory.appendingPathComponent("report.json").path }

    /// Starts `supervise --report … ARGUMENTS`.
    init(_ arguments: [String]) throws {
        // A command written after supervise exited must fail with EPIPE, not kill the test run.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = URL(fileURLWithPath: Supervise.binary)
        process.arguments = ["--report", reportPath] + arguments
        process.standardInput = input
        process.standardOutput = output.pipe
        process.standardError = errors.pipe
        try process.run()
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// What supervise has logged so far.
    var log: String { errors.string }

    /// Writes one command line.
    func send(_ command: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Sends `status` and returns the child's line as an object, or nil if none came in `timeout` s.
    func status(timeout: Double = 10) -> [String: Any]? {
        let seen = statusLines().count
        send("status")
        var line: String?
        Supervise.eventually(timeout: timeout) {
            line = statusLines().dropFirst(seen).first
            return line != nil
        }
        return line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Sends `wait STATE` then `status`: the state the child is in once the wait is over.
    func wait(for state: String, timeout: Double = 20) -> String? {
        send("wait \(state) timeout=\(Int(timeout))s")
        return status(timeout: timeout + 5)?["state"] as? String
    }

    /// Closes stdin, waits for supervise to exit (after `timeout` s it is stopped and an issue
    /// recorded), and returns the run with its report.
    func finish(timeout: Double = 30) -> SuperviseRun {
        try? input.fileHandleForWriting.close()
        if !Supervise.eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("supervise did not exit within \(timeout) s; log:\n\(log)")
        }
        stop()
        let report = (try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return SuperviseRun(status: process.terminationStatus, stdout: output.string, stderr: errors.string,
                            report: report, elapsed: Date().timeIntervalSince(start))
    }

    /// Ends supervise if it still runs (SIGTERM, which stops its children; SIGKILL 5 s later), then
    /// reads its output to the end, or for 2 s where a leftover process still holds the pipes.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            if !Supervise.eventually(timeout: 5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        Supervise.eventually(timeout: 2) { output.ended && errors.ended }
        output.detach()
        errors.detach()
    }

    /// The complete `status` lines on stdout so far (the child's own output shares it).
    private func statusLines() -> [String] {
        output.string.components(separatedBy: "\n").dropLast().filter { $0.hasPrefix("{\"name\":") }
    }
}
