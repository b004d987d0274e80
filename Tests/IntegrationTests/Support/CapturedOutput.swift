import Foundation
import Synchronization
import Testing
import SuperviseTestSupport

/// What a process writes to stdout and stderr, each read to its end on a thread of its own.
///
/// Not with `readabilityHandler`: under load it could miss a pipe's end, and a test then waited
/// its whole timeout for an output no process held any more (21 of 61 `ctl` calls of one suite).
final class CapturedOutput: Sendable {
    private let stdoutData = LockedData(), stderrData = LockedData()
    private let ended = Mutex((stdout: false, stderr: false))
    /// The pipes' `pipe:[INODE]` names, to find who still holds them.
    private let pipeNames: [String]

    /// Gives `process` a pipe for each stream and starts reading them; call before `run()`.
    init(of process: Process) {
        let output = Pipe.closedOnExec(), errors = Pipe.closedOnExec()
        pipeNames = [output, errors].compactMap { PipeHolders.name(of: $0.fileHandleForReading) }
        process.standardOutput = output
        process.standardError = errors
        Self.readToEnd(output.fileHandleForReading, into: stdoutData) { [self] in ended.withLock { $0.stdout = true } }
        Self.readToEnd(errors.fileHandleForReading, into: stderrData) { [self] in ended.withLock { $0.stderr = true } }
    }

    private static func readToEnd(_ handle: FileHandle, into data: LockedData, then end: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            while case let chunk = handle.availableData, !chunk.isEmpty { data.append(chunk) }
            end()
        }
    }

    /// Waits up to `timeout` seconds for both streams to end; whether they did (a process the
    /// command started may still hold them).
    func waitForEnd(timeout: Double) -> Bool {
        eventually(timeout: timeout, interval: 0.02) { ended.withLock { $0.stdout && $0.stderr } }
    }

    /// Waits up to `timeout` seconds for both streams to end, and records an issue naming `what`
    /// when they did not: something it started still holds them, which the test must not pass over.
    func expectEnd(of what: String, timeout: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        if !waitForEnd(timeout: timeout) {
            Issue.record("the output of \(what) stayed open \(timeout) s after it exited, held by: \(PipeHolders.describe(pipeNames))",
                         sourceLocation: sourceLocation)
        }
    }

    var stdout: String { stdoutData.string }
    var stderr: String { stderrData.string }
}
