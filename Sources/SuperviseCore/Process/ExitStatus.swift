/// How a child's process ended.
public enum ChildTermination: Equatable, Sendable, CustomStringConvertible {
    /// It called `exit` with this code.
    case exited(Int32)
    /// This signal killed it.
    case signaled(Int32)

    /// Decodes a status from `waitpid` (called without `WUNTRACED`/`WCONTINUED`).
    public init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }

    /// The status as shells report it: the exit code, or 128 plus the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    /// "exited with 7" or "killed by SIGKILL (9)".
    public var description: String {
        switch self {
        case .exited(let code):
            return "exited with \(code)"
        case .signaled(let signal):
            return "killed by \(SignalName.describe(signal)) (\(signal))"
        }
    }
}
