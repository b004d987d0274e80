/// What decides the supervisor's exit status, gathered over a run.
public struct RunOutcome: Equatable, Sendable {
    /// The supervisor itself failed (125): a freezer or cgroup it needed was not there.
    public var supervisorFailed = false
    /// Some child was killed for an expiry or window violation.
    public var violationKill = false
    /// A scripted step failed (123): a `wait` timed out or waited for a state its child can no
    /// longer reach, or a command read from a pipe or file could not be run as written.
    public var scriptStepFailed = false
    /// Each child's counted status, in the order they exited.
    public var childStatuses: [Int32] = []

    public init() {}

    /// The exit status by the contract's precedence: 125, then the violation status,
    /// then 123, then the first non-zero child status, then 0. (Usage errors, 2, never get here.)
    public func exitStatus(violationStatus: Int32 = 124) -> Int32 {
        if supervisorFailed { return 125 }
        if violationKill { return violationStatus }
        if scriptStepFailed { return 123 }
        return childStatuses.first { $0 != 0 } ?? 0
    }
}
