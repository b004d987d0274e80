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
    /// `schedule ID refresh|processing [earliest=MSms] [requires=COND[,COND…]]`: wake the child
    /// in the background for task `ID` once `earliest` has passed and every condition named in
    /// `requires` holds (the names are the supervisor's to check); replaces a pending `ID`.
    case schedule(id: TaskID, kind: ScheduledTaskKind, earliest: Duration?, requires: [String])
    /// `cancel ID`: drop the pending scheduled task `ID`.
    case cancel(id: TaskID)
    /// `task-completed ID success|failure`: the scheduled task `ID` is finished.
    case taskCompleted(id: TaskID, success: Bool)
}

/// The protocol version this package speaks.
public let protocolVersion = 1

/// The longest line either side may write, newline included.
public let maxLineLength = 1024
