import SuperviseProtocol

/// A scheduled task run as the report shows it: requested, started, expired, ended, and how.
public struct ScheduledTaskRecord: Equatable, Sendable {
    /// How a scheduled task's run ended.
    public enum Outcome: String, Sendable {
        /// `task-completed ID success` (or `end ID`).
        case success
        /// `task-completed ID failure`: the run's exit status is 1 unless something weighs more.
        case failure
        /// Still running at its limit: killed, a violation.
        case expired
        /// The child exited, or was terminated, before it completed the task.
        case interrupted
    }

    public var id: TaskID
    public var kind: ScheduledTaskKind
    public var requestedAt: Instant
    /// When its background entry began, and the time it had from then.
    public var startedAt: Instant
    public var limit: Duration
    /// When `expire` was sent for it.
    public var expiredAt: Instant?
    public var endedAt: Instant?
    public var outcome: Outcome?
    /// The background entry made for it (its SEQ).
    public var seq: UInt64
}

/// A due scheduled task handed to a run: the lifecycle makes a background entry for it.
public struct ScheduledTaskStart: Equatable, Sendable {
    var id: TaskID
    var kind: ScheduledTaskKind
    var requestedAt: Instant
    /// The task's time: `--refresh-time` or `--processing-time`.
    var limit: Duration
}
