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
    /// No process: never started (`autostart = false`), or reclaimed; an event launches it.
    case notRunning = "not-running"
}

extension ChildState {
    /// In the background, being frozen or frozen: the time the summary calls "in the background".
    public var isOutOfForeground: Bool { self == .background || self == .suspending || self == .suspended }
}
