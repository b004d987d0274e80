import Foundation

/// Collects what arrives on a pipe until its end. Never blocks on the end: a process that
/// outlives its writer (a leftover of the tree under test) may hold the pipe open for ever.
final class PipeCollector: @unchecked Sendable {
    let pipe = Pipe()
    private let data = LockedData()
    private let lock = NSLock()
    private var reachedEnd = false

    init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            guard let self else { return }
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                self.lock.withLock { self.reachedEnd = true }
            } else {
                self.data.append(chunk)
            }
        }
    }

    var string: String { data.string }
    var ended: Bool { lock.withLock { reachedEnd } }

    /// Stops reading, whether or not the end came.
    func detach() {
        pipe.fileHandleForReading.readabilityHandler = nil
    }
}
