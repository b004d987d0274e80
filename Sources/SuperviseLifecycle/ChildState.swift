/// A child's state, as the supervisor reports it.
public enum ChildState: String, Sendable, CaseIterable {
    case launching
    case active
    case background
    /// Freeze requested, not yet verified.
    case suspending
    /// Verified frozen.
    case suspended
    case terminating
    case exited
}
