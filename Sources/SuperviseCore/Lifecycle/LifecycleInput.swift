import SuperviseProtocol

/// Something that happened to one child. Every input is handled at an `Instant`.
public enum LifecycleInput: Equatable, Sendable {
    /// The child was spawned: send the launch events.
    case launched
    /// A well-formed request read from the child.
    case request(Request)
    /// A line the codec refused; the child gets `error CODE REQUEST`.
    case malformed(RequestError)
    /// Control commands (stdin or signals).
    case background
    case foreground
    case event(kind: String, text: String?)
    /// Terminate gracefully; `escalate` (a second SIGTERM/SIGINT) kills at once when already terminating.
    case terminate(escalate: Bool)
    /// The freezer confirmed every process of the child is frozen.
    case freezeVerified
    /// The child's main process was reaped. `treeEmpty` tells whether descendants are left.
    case exited(ChildTermination, treeEmpty: Bool)
    /// The descendants left behind by an exited child are gone.
    case treeEmptied
    /// Time has passed: act on whatever timer is due.
    case tick
}
