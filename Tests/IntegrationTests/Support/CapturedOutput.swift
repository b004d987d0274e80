import Foundation
import Synchronization
import SuperviseTestSupport

/// What a process writes to stdout and stderr, collected by reader threads until each pipe ends.
final class CapturedOutput: Sendable {
    private let stdoutData = LockedData(), stderrData = LockedData()
    private let ended = Mutex((stdout: false, stderr: false))

    /// Gives `process` a pipe for each stream and starts reading them; call before `run()`.
    init(of process: Process) {
        let output = Pipe.closedOnExec(), errors = Pipe.closedOnExec()
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [self] handle in
            let data = handle.availableData
            if data.isEmpty { self.ended.withLock { $0.stdout = true }; handle.readabilityHandler = nil } else { self.stdoutData.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [self] handle in
            let data = handle.availableData
            if data.isEmpty { self.ended.withLock { $0.stderr = true }; handle.readabilityHandler = nil } else { self.stderrData.append(data) }
        }
    }

    /// Waits up to `timeout` seconds for both streams to end; whether they did (a process the
    /// command started may still hold them).
    func waitForEnd(timeout: Double) -> Bool {
        eventually(timeout: timeout, interval: 0.02) { ended.withLock { $0.stdout && $0.stderr } }
    }

    var stdout: String { stdoutData.string }
    var stderr: String { stderrData.string }
}
