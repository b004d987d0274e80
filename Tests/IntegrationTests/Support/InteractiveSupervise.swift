import Foundation
import SuperviseTestSupport

/// One line of `status`: what `supervise` claims about a child.
struct StatusLine {
    let pid: Int32
    let state: String
    let freezer: String
    let cgroup: String?

    init?(_ line: String) {
        guard line.hasPrefix("{\"name\":"),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["name"] is String, let state = object["state"] as? String,
              let freezer = object["freezer"] as? String else { return nil }
        pid = Int32(object["pid"] as? Int ?? 0)
        self.state = state
        self.freezer = freezer
        cgroup = object["cgroup"] as? String
    }
}

/// A real `supervise` driven one command at a time: its standard input stays open, its output is read as it comes.
final class InteractiveSupervise {
    let process = Process()
    private let input = Pipe()
    private let output: LineReader
    private let errors: LineReader
    private let reportPath: String
    /// The number of command lines written so far (the supervisor's `stdin line N`).
    private(set) var linesWritten = 0

    init(_ arguments: [String], environment: [String: String] = [:], in directory: URL) throws {
        reportPath = directory.appendingPathComponent("report.json").path
        process.executableURL = URL(fileURLWithPath: Supervise.binary)
        process.arguments = ["--report", reportPath] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe(), stderr = Pipe()
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = stderr
        output = LineReader(stdout.fileHandleForReading)
        errors = LineReader(stderr.fileHandleForReading)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// Writes `commands` at once, one line each; numbers the lines as the supervisor will. Quietly does
    /// nothing once the supervisor has closed its input.
    @discardableResult
    func send(_ commands: [String]) -> [Int] {
        let numbers = commands.indices.map { linesWritten + 1 + $0 }
        linesWritten += commands.count
        Self.writeWithoutSIGPIPE(input.fileHandleForWriting.fileDescriptor, commands.map { $0 + "\n" }.joined())
        return numbers
    }

    /// The answer to the next `status`: `nil` when the supervisor ended first or said nothing for `timeout` seconds.
    func nextStatus(timeout: Double) -> StatusLine? {
        output.next(timeout: timeout) { StatusLine($0) != nil }.flatMap(StatusLine.init)
    }

    /// Whether it has ended, or at least closed its standard output (it is exiting).
    var hasEnded: Bool { output.hasEnded || !process.isRunning }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Closes its input and waits at most `timeout` seconds for it to exit (then kills it); its
    /// exit status, whether it exited by itself, and its report.
    func finish(timeout: Double) -> (status: Int32, exitedInTime: Bool, report: [String: Any]?) {
        try? input.fileHandleForWriting.close()
        let inTime = eventually(timeout: timeout) { !process.isRunning }
        if !inTime {
            kill(pid, SIGTERM)
            if !eventually(timeout: 5, { !process.isRunning }) { kill(pid, SIGKILL) }
        }
        process.waitUntilExit()
        _ = output.waitForEnd(timeout: 5)
        _ = errors.waitForEnd(timeout: 5)
        let report = (try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (process.terminationStatus, inTime, report)
    }

    /// The supervisor's log so far.
    var stderrLines: [String] { errors.all }

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
