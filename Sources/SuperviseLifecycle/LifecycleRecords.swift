import SuperviseProtocol

/// A task assertion as the report shows it.
public struct TaskRecord: Equatable, Sendable {
    public var id: TaskID
    public var name: String?
    public var begin: Instant
    public var end: Instant?
    /// When `expire` was sent for it.
    public var expire: Instant?
    /// The `begin` could not be granted and was answered with `expire` at once.
    public var refused: Bool
}

/// A task named in a violation.
public struct TaskReference: Equatable, Sendable {
    public var id: TaskID
    public var name: String?
}

/// A broken timing rule.
public struct Violation: Equatable, Sendable {
    public enum Kind: String, Sendable {
        /// Tasks were still open at the limit.
        case expiry
        /// An aware child neither sent `done` nor held a task when its window ended.
        case window
        /// A child expected to be aware (`--aware`) did not say `hello` within the launch timeout.
        case launch
    }

    public enum Action: String, Sendable {
        case killed
        case suspended
    }

    public var kind: Kind
    public var at: Instant
    public var action: Action
    public var tasks: [TaskReference]
}

/// How a child's exit came about, for the report's `exit.by`.
public enum ExitCause: String, Sendable {
    /// It exited on its own.
    case `self`
    /// It exited within the grace of a termination the supervisor started.
    case terminate
    /// It was killed for a violation.
    case violation
    /// It was SIGKILLed at the end of a grace, or at once on a second signal.
    case kill
    /// It was killed while suspended to take back memory (`--suspended-memory`): never a failure.
    case reclaim
}

/// A child's exit as the report shows it.
public struct ExitRecord: Equatable, Sendable {
    public var termination: ChildTermination
    public var by: ExitCause
    /// Within the grace (`true`), killed at its end (`false`), or no termination started (`nil`).
    public var inTime: Bool?
    public var at: Instant
    /// What this exit contributes to the supervisor's exit status (before violations and waits).
    public var countedStatus: Int32
}
