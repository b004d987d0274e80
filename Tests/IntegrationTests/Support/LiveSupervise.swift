import Foundation
import SuperviseTestSupport
import Testing

/// One line of `status`: what `supervise` claims about a child.
struct StatusLine {
    let pid: Int32
    let state: String
    let freezer: String
    let cgroup: String?
    /// Every key of the line.
    let object: [String: Any]

    init?(_ line: String) {
        guard line.hasPrefix("{\"name\":"),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["name"] is String, let state = object["state"] as? String,
              let freezer = object["freezer"] as? String else { return nil }
        pid = Int32(object["pid"] as? Int ?? 0)
        self.state = state
        self.freezer = freezer
        cgroup = object["cgroup"] as? String
        self.object = object
    }
}

/// A running `supervise` the test drives one command at a time: its stdin stays open, and
/// `status` lines are read back from its stdout as the test needs them. With `inPIDNamespace`
/// it runs as pid 1 of a new pid namespace, with its own `/proc` (`unshare --pid --fork --mount-proc`).
/// The one driver of a live supervisor: the scenario tests and the truth monitor both use it.
final class LiveSupervise {
    /// `supervise`, or the `unshare` that forked it.
    let process = Process()
    private let inPIDNamespace: Bool
    private let input = Pipe.closedOnExec()
    private let output: LineReader, errors: LineReader
    /// The output pipes' names, to find who still holds them.
    private let pipeNames: [String]
    private let directory = TemporaryDirectory()
    private let start = Date()
    private var reportPath: String { directory.file("report.json") }
    /// The number of command lines written so far (the supervisor's `stdin line N`).
    private(set) var linesWritten = 0

    /// Starts `supervise --report … ARGUMENTS`, with `environment` added to the test's own.
    init(_ arguments: [String], environment: [String: String] = [:], inPIDNamespace: Bool = false) throws {
        // A command written after supervise exited must fail with EPIPE, not kill the test run.
        Glibc.signal(SIGPIPE, SIG_IGN)
        self.inPIDNamespace = inPIDNamespace
        let stdout = Pipe.closedOnExec(), stderr = Pipe.closedOnExec()
        output = LineReader(stdout.fileHandleForReading)
        errors = LineReader(stderr.fileHandleForReading)
        pipeNames = [stdout, stderr].compactMap { PipeHolders.name(of: $0.fileHandleForReading) }
        let supervise = [Supervise.binary, "--report", directory.file("report.json")] + arguments
        process.executableURL = URL(fileURLWithPath: inPIDNamespace ? PIDNamespace.unshare : supervise[0])
        process.arguments = inPIDNamespace ? PIDNamespace.options + supervise : Array(supervise.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    /// The pid of the process this test started (`unshare` in a pid namespace).
    var pid: Int32 { process.processIdentifier }

    /// The supervisor's pid as this test sees it: in a pid namespace, the process `unshare` forked.
    var supervisorPID: Int32? {
        guard inPIDNamespace else { return process.processIdentifier }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// What supervise has logged so far, one line each.
    var stderrLines: [String] { errors.all }

    /// What supervise has logged so far.
    var log: String { stderrLines.joined(separator: "\n") }

    /// Whether it has ended, or at least closed its standard output (it is exiting).
    var hasEnded: Bool { output.hasEnded || !process.isRunning }

    /// Writes one command line.
    func send(_ command: String) {
        send([command])
    }

    /// Writes `commands` at once, one line each; numbers the lines as the supervisor will. Quietly does
    /// nothing once the supervisor has closed its input.
    @discardableResult
    func send(_ commands: [String]) -> [Int] {
        let numbers = commands.indices.map { linesWritten + 1 + $0 }
        linesWritten += commands.count
        Self.writeWithoutSIGPIPE(input.fileHandleForWriting.fileDescriptor, commands.map { $0 + "\n" }.joined())
        return numbers
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// The next `status` answer: `nil` when the supervisor ended first or said nothing for `timeout` seconds.
    func nextStatus(timeout: Double) -> StatusLine? {
        nextStatusLine(timeout: timeout).flatMap(StatusLine.init)
    }

    /// Sends `status` and returns the child's line as an object once the commands sent before
    /// have run (a `wait` holds it back), or nil if none came in `timeout` s. One child: its
    /// status lines are taken in order, skipping the child's own output.
    func status(timeout: Double = 20) -> [String: Any]? {
        send("status")
        return nextStatusLine(timeout: timeout)
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    private func nextStatusLine(timeout: Double) -> String? {
        output.next(timeout: timeout) { $0.hasPrefix("{\"name\":") }
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
        let end = end(timeout: timeout, drain: 2)
        if !end.exitedInTime { Issue.record("supervise did not exit within \(timeout) s; log:\n\(log)") }
        return end.run
    }

    /// Closes stdin and waits at most `timeout` seconds for supervise to exit (then stops it), and up to
    /// `drain` seconds more for the end of its output; the run, and whether it exited by itself.
    func end(timeout: Double, drain: Double) -> (run: SuperviseRun, exitedInTime: Bool) {
        try? input.fileHandleForWriting.close()
        let inTime = eventually(timeout: timeout) { !process.isRunning }
        stop(drain: drain)
        let report = (try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let run = SuperviseRun(status: process.terminationStatus, stdout: output.all.joined(separator: "\n"), stderr: log,
                               report: report, elapsed: Date().timeIntervalSince(start))
        return (run, inTime)
    }

    /// Ends supervise if it still runs (SIGTERM, which stops its children; SIGKILL 5 s later: the
    /// next run sweeps what that leaves), then waits for the end of its output, for `drain` s at most
    /// where a leftover process still holds the pipes.
    func stop(drain: Double = 2) {
        if process.isRunning, let supervisor = supervisorPID {
            kill(supervisor, SIGTERM)
            if !eventually(timeout: 5, { !process.isRunning }) {
                kill(supervisor, SIGKILL)
                kill(pid, SIGKILL)
            }
        }
        process.waitUntilExit()
        for (stream, reader) in [("stdout", output), ("stderr", errors)] where !reader.waitForEnd(timeout: drain) {
            Issue.record("supervise's \(stream) stayed open \(drain) s after it exited, held by: \(PipeHolders.describe(pipeNames))")
        }
    }

    /// Writes to a pipe whose reader may be gone: SIGPIPE is blocked on this thread for the write, and
    /// one it raised is taken back, so the test process sees only EPIPE.
    private static func writeWithoutSIGPIPE(_ fd: Int32, _ text: String) {
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            bytes = bytes.dropFirst(written)
        }
        var timeout = timespec(tv_sec: 0, tv_nsec: 0)
        while sigtimedwait(&pipeSignal, nil, &timeout) == SIGPIPE {}
        pthread_sigmask(SIG_SETMASK, &previous, nil)
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
