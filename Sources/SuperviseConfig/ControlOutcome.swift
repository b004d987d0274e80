/// The last line of every answer on the control socket: `ok`, or `error CODE MESSAGE`
/// (docs/cli.md, "Control from outside"). The lines before it are the answer itself.
public enum ControlOutcome: Equatable, Sendable {
    case ok
    case error(ControlErrorCode, String)

    /// The line as sent, without its newline; the message is kept to one line.
    public var line: String {
        switch self {
        case .ok: "ok"
        case .error(let code, let message): "error \(code.rawValue) \(UsageError(message).message)"
        }
    }

    /// The outcome `line` carries, or `nil` when it is an answer line.
    public static func parse(_ line: some StringProtocol) -> ControlOutcome? {
        if line == "ok" { return .ok }
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count == 3, words[0] == "error", let code = ControlErrorCode(rawValue: String(words[1])) else {
            return nil
        }
        return .error(code, String(words[2]))
    }
}

/// Why the supervisor did not carry out a command sent on the control socket.
public enum ControlErrorCode: String, Sendable, CaseIterable {
    /// Not a command as written: the stdin grammar's error.
    case usage
    /// A child's state or name refuses it (no such child, already running, ...).
    case refused
    /// The peer is not the supervisor's user, root or a member of the socket's group.
    case denied
    /// Too many clients are connected at once.
    case busy
    /// A `wait` timed out or can't be satisfied, or the run ended while it held.
    case waitFailed = "wait-failed"

    /// The exit status of `supervise ctl` for it: 123 for a failed wait, 2 for the rest.
    public var exitStatus: Int32 { self == .waitFailed ? 123 : 2 }
}
