import SuperviseProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Writes events to one child's events pipe without ever blocking the supervisor.
///
/// What the pipe can't take yet waits in a per-child backlog, flushed when the pipe is
/// writable again. Lifecycle events are never dropped; `error` events are dropped (and
/// counted) while the backlog is over ``backlogLimit``.
final class EventWriter {
    static let backlogLimit = 64 * 1024

    let fd: Int32
    private var backlog: [UInt8] = []
    private var scratch: [UInt8] = []
    /// `error` events dropped because the child was not reading.
    private(set) var errorsDropped = 0
    /// The child closed its end; nothing more can reach it.
    private(set) var isBroken = false
    /// Called with `true` when a backlog forms (wait for writability) and `false` when it is gone.
    var onBacklogChange: (Bool) -> Void = { _ in }

    init(fd: Int32) { self.fd = fd }

    var hasBacklog: Bool { !backlog.isEmpty }

    /// Encodes `events` and writes them with one `write(2)` where the pipe has room.
    func send(_ events: [Event]) {
        guard !isBroken else { return }
        scratch.removeAll(keepingCapacity: true)
        for event in events {
            if case .error = event, backlog.count > Self.backlogLimit {
                errorsDropped += 1
                continue
            }
            event.write(into: &scratch)
        }
        guard !scratch.isEmpty else { return }
        if backlog.isEmpty {
            let written = write(scratch)
            guard written < scratch.count, !isBroken else { return }
            backlog.append(contentsOf: scratch[written...])
            onBacklogChange(true)
        } else {
            backlog.append(contentsOf: scratch)
        }
    }

    /// Writes as much of the backlog as the pipe takes now.
    func flush() {
        guard !backlog.isEmpty else { return }
        let written = write(backlog)
        backlog.removeFirst(written)
        if backlog.isEmpty || isBroken {
            backlog.removeAll()
            onBacklogChange(false)
        }
    }

    /// Writes what it can; returns the bytes written, marking the writer broken on EPIPE.
    private func write(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if result > 0 {
                offset += result
            } else {
                if errno != EAGAIN { isBroken = true }
                break
            }
        }
        return offset
    }
}
