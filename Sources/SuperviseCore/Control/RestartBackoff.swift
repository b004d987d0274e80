extension ChildSpec {
    /// Whether the child is started again after its process ended.
    ///
    /// - Parameters:
    ///   - status: its exit status as the run reports it (exit code, or 128+N for signal N).
    ///   - killedForViolation: the supervisor killed it for an expiry or window violation.
    ///   - stoppedBySupervisor: it ended after a termination the supervisor started
    ///     (a `terminate` command, SIGTERM, SIGINT); such a child is never restarted.
    public func shouldRestart(status: Int32, killedForViolation: Bool, stoppedBySupervisor: Bool) -> Bool {
        if stoppedBySupervisor { return false }
        if killedForViolation && !restartAfterViolation { return false }
        switch restart {
        case .never: return false
        case .onFailure: return status != 0 || killedForViolation
        case .always: return true
        }
    }
}

/// The waits between the restarts of one child.
///
/// The first restart waits `restartDelay`; each quick consecutive restart waits
/// twice as long as the one before, up to `restartDelayMax`. A run of at least
/// ``stableRun`` counts as a success and starts the sequence again.
public struct RestartBackoff: Equatable, Sendable {
    /// How long a child must run for its next restart to wait `restartDelay` again.
    public static let stableRun: Duration = .seconds(10)

    /// The wait before the first restart of a sequence.
    public let initial: Duration
    /// The longest wait.
    public let maximum: Duration
    private var next: Duration

    /// The back-off for `spec`'s restart delays.
    public init(for spec: ChildSpec) {
        initial = spec.restartDelay
        maximum = spec.restartDelayMax
        next = spec.restartDelay
    }

    /// The wait before starting the child again, after a run that lasted `runTime`.
    public mutating func delay(afterRunOf runTime: Duration) -> Duration {
        if runTime >= Self.stableRun { next = initial }
        let delay = min(next, maximum)
        next = min(next * 2, maximum)
        return delay
    }
}
