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
}

/// The protocol version this package speaks.
public let protocolVersion = 1

/// The longest line either side may write, newline included.
public let maxLineLength = 1024
