/// A request a child writes to the supervisor (protocol 1).
public enum Request: Equatable, Sendable {
    /// `hello 1`: the child speaks protocol 1.
    case hello
    /// `done SEQ`: the handler for background entry `SEQ` has returned.
    case done(seq: UInt64)
    /// `begin ID [NAME]`: start a task assertion.
    case begin(id: TaskID, name: String?)
    /// `end ID`: end a task assertion.
    case end(id: TaskID)
    /// `schedule ID refresh|processing [earliest=DURATION] [requires=COND[,COND…]]`: ask to
    /// be woken in the background for task `ID` later; replaces a pending request of that ID.
    case schedule(ScheduleRequest)
    /// `cancel ID`: drop the pending scheduled task `ID`.
    case cancel(id: TaskID)
    /// `task-completed ID success|failure`: the scheduled task `ID` is over.
    case taskCompleted(id: TaskID, success: Bool)
}

/// The protocol version this package speaks.
public let protocolVersion = 1

/// The longest line either side may write, newline included.
public let maxLineLength = 1024
