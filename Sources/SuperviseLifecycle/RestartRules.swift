/// When a child that exited is started again.
public enum RestartPolicy: String, Sendable, CaseIterable {
    case never
    case onFailure = "on-failure"
    case always
}

/// Whether, and after how long, a child is started again after its process ended.
public struct RestartRules: Equatable, Sendable {
    public var policy: RestartPolicy
    /// The wait before the first restart; doubled for each quick consecutive restart.
    public var delay: Duration
    /// The longest wait between restarts.
    public var delayMax: Duration
    /// Whether a child killed for a violation (expiry, window or launch) is restarted too.
    public var afterViolation: Bool

    public init(policy: RestartPolicy = .never, delay: Duration = .seconds(1), delayMax: Duration = .seconds(30),
                afterViolation: Bool = false) {
        self.policy = policy
        self.delay = delay
        self.delayMax = delayMax
        self.afterViolation = afterViolation
    }

    /// Whether the child is started again after its process ended.
    ///
    /// - Parameters:
    ///   - status: its exit status as the run reports it (exit code, or 128+N for signal N).
    ///   - killedForViolation: the supervisor killed it for a violation (expiry, window or launch).
    ///   - stoppedBySupervisor: it ended after a termination the supervisor started
    ///     (a `terminate` command, SIGTERM, SIGINT); such a child is never restarted.
    public func shouldRestart(status: Int32, killedForViolation: Bool, stoppedBySupervisor: Bool) -> Bool {
        if stoppedBySupervisor { return false }
        if killedForViolation && !afterViolation { return false }
        switch policy {
        case .never: return false
        case .onFailure: return status != 0 || killedForViolation
        case .always: return true
        }
    }
}
