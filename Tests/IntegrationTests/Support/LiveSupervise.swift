import Foundation
import Testing
import SuperviseTestSupport

/// A running `supervise` the test drives one command at a time: its stdin stays open, and
/// `status` lines are read back from its stdout as the test needs them. With `inPIDNamespace`
/// it runs as pid 1 of a new pid namespace, with its own `/proc` (`unshare --pid --fork --mount-proc`).
final class LiveSupervise {
    /// `supervise`, or the `unshare` that forked it.
    let process = Process()
    private let inPIDNamespace: Bool
    private let input = Pipe()
    private let output: LineReader, errors: LineReader
    private let directory = TemporaryDirectory()
    private let start = Date()
    private var reportPath: String { directory.file("report.json") }

    /// Starts `supervise --report … ARGUMENTS`.
    init(_ arguments: [String], inPIDNamespace: Bool = false) throws {
        // A command written after supervise exited must fail with EPIPE, not kill the test run.
        signal(SIGPIPE, SIG_IGN)
        self.inPIDNamespace = inPIDNamespace
        let stdout = Pipe(), stderr = Pipe()
        output = LineReader(stdout.fileHandleForReading)
        errors = LineReader(stderr.fileHandleForReading)
        let supervise = [Supervise.binary, "--report", reportPath] + arguments
        process.executableURL = URL(fileURLWithPath: inPIDNamespace ? PIDNamespace.unshare : supervise[0])
        process.arguments = inPIDNamespace ? PIDNamespace.options + supervise : Array(supervise.dropFirst())
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// What supervise has logged so far.
    var log: String { errors.all.joined(separator: "\n") }

    /// The supervisor's pid as this test sees it: in a pid namespace, the process `unshare` forked.
    var supervisorPID: Int32? {
        guard inPIDNamespace else { return process.processIdentifier }
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Writes one command line.
    func send(_ command: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Sends `status` and returns the child's line as an object once the commands sent before
    /// have run (a `wait` holds it back), or nil if none came in `timeout` s. One child: its
    /// status lines are taken in order, skipping the child's own output.
    func status(timeout: Double = 20) -> [String: Any]? {
        send("status")
        return output.next(timeout: timeout) { $0.hasPrefix("{\"name\":") }
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Sends `wait STATE` then `status`: the state the child is in once the wait is over.
    func wait(for state: String, timeout: Double = 20) -> String? {
        send("wait \(state) timeout=\(Int(timeout))s")
        return status(timeout: timeout + 5)?["state"] as? String
    }

    /// Waits up to `timeout` seconds for it to exit on its own; its exit status, or `nil` if it did not.
    func exitStatus(timeout: Double = 20) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends `terminate` and waits for the exit; its exit status, or `nil` if it did not exit.
    func terminate(timeout: Double = 20) -> Int32? {
        send("terminate")
        return exitStatus(timeout: timeout)
    }

    /// Closes stdin, waits for supervise to exit (after `timeout` s it is stopped and an issue
    /// recorded), and returns the run with its report.
    func finish(timeout: Double = 30) -> SuperviseRun {
        try? input.fileHandleForWriting.close()
        if !eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("supervise did not exit within \(timeout) s; log:\n\(log)")
        }
        stop()
        let report = (try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return SuperviseRun(status: process.terminationStatus, stdout: output.all.joined(separator: "\n"), stderr: log,
                            report: report, elapsed: Date().timeIntervalSince(start))
    }

    /// Ends supervise if it still runs (SIGTERM, which stops its children; SIGKILL 5 s later: the
    /// next run sweeps what that leaves), then waits for the end of its output, for 2 s at most
    /// where a leftover process still holds the pipes.
    func stop() {
        if process.isRunning, let pid = supervisorPID {
            kill(pid, SIGTERM)
            if !eventually(timeout: 5, { !process.isRunning }) {
                kill(pid, SIGKILL)
                kill(process.processIdentifier, SIGKILL)
            }
        }
        process.waitUntilExit()
        _ = output.waitForEnd(timeout: 2)
        _ = errors.waitForEnd(timeout: 2)
    }
}

/// Running a command as pid 1 of a new pid namespace with `unshare`.
enum PIDNamespace {
    static let unshare = "/usr/bin/unshare"
    static let options = ["--pid", "--fork", "--mount-proc"]

    /// Why a new pid namespace can't be made here, or `nil` when it can.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: unshare) else { return "util-linux's unshare is not installed" }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: unshare)
        probe.arguments = options + ["true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "\(unshare) could not be run" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "unshare \(options.joined(separator: " ")) fails here (it needs root)"
    }()

    /// Why `backend` can't be run in and beside a pid namespace here, or `nil` when it can.
    static func unavailableReason(with backend: Backend) -> String? {
        backend.unavailableReason ?? unavailableReason
    }
}
