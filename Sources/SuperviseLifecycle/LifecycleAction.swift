import SuperviseProtocol

/// What the shell must do for one child, in order.
public enum LifecycleAction: Equatable, Sendable {
    /// Write this event to the child (the sends of one step go out in one `write(2)`).
    case send(Event)
    /// Ask the freezer to freeze the child; report `.freezeVerified` when it is.
    case freeze
    /// Thaw the child and verify it runs.
    case thaw
    /// Send this signal to every process of the child's tree, followed by SIGCONT.
    case signalTree(Int32)
    /// SIGKILL the child's whole tree.
    case killTree
    /// The reported state changed.
    case stateChanged(ChildState)
    /// A violation was judged.
    case violation(Violation)
    /// A freeze attempt's outcome worth recording in the timeline (`freeze-failed …`).
    case freezeFailed(String)
    /// A command was refused; the shell prints this reason.
    case refuse(String)
    /// Something worth a timeline note and a log line.
    case note(String)
}
