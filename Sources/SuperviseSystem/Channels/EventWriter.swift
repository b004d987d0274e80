import SuperviseLifecycle
import SuperviseProtocol

/// Writes events to one child's events pipe without ever blocking the supervisor.
///
/// What the pipe can't take yet waits in a per-child backlog, flushed when the pipe is
/// writable again. Lifecycle events are never dropped; `error` events are dropped (and
/// counted) while the backlog is over ``backlogLimit``, and the core refuses `event` commands
/// (told ``backlogBytes``). Once the backlog is over ``fullAt``
/// it is *full*: the child's requests are not read until it has read every event waiting,
/// so what a child that does not read can make the supervisor queue stays bounded.
public final class EventWriter {
    static let backlogLimit = ChildLifecycle.unreadEventsLimit

    /// How the backlog changed, for the loop to watch the right descriptors.
    public enum BacklogChange {
        /// A backlog formed: wait until the pipe is writable.
        case formed
        /// The backlog passed ``fullAt``: stop reading the child's requests.
        case full
        /// The backlog is gone: stop waiting for writability, and read requests again.
        case drained
    }

    public let fd: Int32
    /// The backlog size past which the child's requests are not read: twice the `error`
    /// bound, plus room for an `expire` to each task the child may hold, so that the
    /// supervisor's own events never make a child that reads them wait.
    public let fullAt: Int
    private var backlog: [UInt8] = []
    private var scratch: [UInt8] = []
    /// `error` events dropped because the child was not reading.
    public private(set) var errorsDropped = 0
    /// The child closed its end; nothing more can reach it.
    private(set) var isBroken = false
    /// More than ``fullAt`` bytes waited, and the child has not read them all yet.
    public private(set) var isFull = false
    public var onBacklogChange: (BacklogChange) -> Void = { _ in }
    /// Bytes of events waiting for the pipe to take them.
    public var backlogBytes: Int { backlog.count }
    /// Runs once, when the first event can't reach the child because it closed its end.
    public var onFirstEventLost: () -> Void = {}
    private var reportedLoss = false

    public init(fd: Int32, maxOpenTasks: Int) {
        self.fd = fd
        fullAt = 2 * Self.backlogLimit + maxOpenTasks * Self.longestExpireLine
    }

    /// `expire ID\n` with the longest ID.
    static let longestExpireLine = "expire \n".utf8.count + TaskID.maxLength

    /// Encodes `events` and writes them with one `write(2)` where the pipe has room.
    public func send(_ events: [Event]) {
        guard !isBroken else { return lost() }
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
            if isBroken { return lost() }
            guard written < scratch.count else { return }
            backlog.append(contentsOf: scratch[written...])
            onBacklogChange(.formed)
        } else {
            backlog.append(contentsOf: scratch)
        }
        if !isFull, backlog.count > fullAt {
            isFull = true
            onBacklogChange(.full)
        }
    }

    /// Writes as much of the backlog as the pipe takes now; `events` are what the loop reported.
    public func flush(_ events: UInt32) {
        if events & EventLoop.closed != 0 { isBroken = true }
        guard !backlog.isEmpty else { return }
        let written = isBroken ? 0 : write(backlog)
        backlog.removeFirst(written)
        if isBroken { lost() }
        if backlog.isEmpty || isBroken {
            backlog.removeAll()
            isFull = false
            onBacklogChange(.drained)
        }
    }

    /// Closes the events pipe, once the run is over (stop the loop waiting on it first).
    public func close() {
        Descriptor.close(fd)
    }

    private func lost() {
        guard !reportedLoss else { return }
        reportedLoss = true
        onFirstEventLost()
    }

    /// Writes what it can; returns the bytes written, marking the writer broken on EPIPE.
    private func write(_ bytes: [UInt8]) -> Int {
        let (written, stoppedBy) = bytes.withUnsafeBytes { Descriptor.write(fd, $0) }
        if let stoppedBy, stoppedBy != .resourceTemporarilyUnavailable { isBroken = true }
        return written
    }
}
