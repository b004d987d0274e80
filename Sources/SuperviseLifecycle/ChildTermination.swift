/// How a child's process ended.
public enum ChildTermination: Equatable, Sendable {
    /// It called `exit` with this code.
    case exited(Int32)
    /// This signal killed it.
    case signaled(Int32)

    /// The status as shells report it: the exit code, or 128 plus the signal number.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}
