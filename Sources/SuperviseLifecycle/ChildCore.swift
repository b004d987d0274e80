/// Everything decided about one child over all its runs: the current run's ``ChildLifecycle``,
/// the runs before it, and when the next one starts (``RestartRules``, ``RestartBackoff``).
///
/// Feed it every ``LifecycleInput`` with the instant it happened; carry out the actions of the
/// ``ChildDecision`` it returns, in order; the decision's ``ChildStatus`` is all the shell needs
/// to know until the next call.
public struct ChildCore: Sendable {
    public let restartRules: RestartRules
    /// The current run.
    public private(set) var lifecycle: ChildLifecycle
    /// The runs before it, oldest first.
    public private(set) var pastRuns: [ChildLifecycle] = []
    private var backoff: RestartBackoff
    private var restartAt: Instant?
    private var runStartedAt: Instant?
    /// Told to terminate: no run starts again.
    private var stopped = false
    /// The current run never started (exec failed).
    private var spawnFailed = false

    public init(settings: LifecycleSettings, restart: RestartRules, freezerNotifies: Bool) {
        restartRules = restart
        lifecycle = ChildLifecycle(settings: settings, freezerNotifies: freezerNotifies)
        backoff = RestartBackoff(restart)
    }

    /// Every run's lifecycle, oldest first.
    public var runs: [ChildLifecycle] { pastRuns + [lifecycle] }

    /// What the shell needs to know now.
    public var status: ChildStatus {
        ChildStatus(state: lifecycle.state, isFinished: lifecycle.isFinished,
                    nextDeadline: earliest(lifecycle.nextDeadline, restartAt), restartPending: restartAt != nil)
    }

    /// Handles one input at `now`: the actions to carry out, in order, and the status after them.
    public mutating func handle(_ input: LifecycleInput, at now: Instant) -> ChildDecision {
        var actions = lifecycle.handle(input, at: now)
        switch input {
        case .launched:
            runStartedAt = now
        case .spawnFailed:
            spawnFailed = true
        case .terminate:
            stopped = true
            if restartAt != nil {
                restartAt = nil
                actions.append(.restartCancelled)
            }
        case .runOver:
            scheduleRestart(now, &actions)
        case .tick:
            if let at = restartAt, at <= now { startNextRun(&actions) }
        default:
            break
        }
        return ChildDecision(actions: actions, status: status)
    }

    /// After a finished run: waits out the back-off if the rules restart it.
    private mutating func scheduleRestart(_ now: Instant, _ actions: inout [LifecycleAction]) {
        guard let exit = lifecycle.exit, lifecycle.isFinished, !stopped, !spawnFailed, restartAt == nil else { return }
        let restart = restartRules.shouldRestart(status: exit.termination.shellStatus,
                                                 killedForViolation: exit.by == .violation,
                                                 stoppedBySupervisor: exit.by == .terminate || exit.by == .kill)
        guard restart else { return }
        let delay = backoff.delay(afterRunOf: now - (runStartedAt ?? now))
        restartAt = now + delay
        actions.append(.restartScheduled(after: delay, run: pastRuns.count + 2))
    }

    private mutating func startNextRun(_ actions: inout [LifecycleAction]) {
        restartAt = nil
        runStartedAt = nil
        spawnFailed = false
        pastRuns.append(lifecycle)
        lifecycle = ChildLifecycle(settings: lifecycle.settings, freezerNotifies: lifecycle.freezerNotifies)
        actions.append(.startRun)
    }
}

/// What one input decided: the actions, and the child's status after them.
public struct ChildDecision: Equatable, Sendable {
    public let actions: [LifecycleAction]
    public let status: ChildStatus
}

/// What the shell needs to know of a child between two decisions.
public struct ChildStatus: Equatable, Sendable {
    public let state: ChildState
    /// The run's process exited and nothing of its tree is waited for any longer.
    public let isFinished: Bool
    /// When to send `.tick` next; `nil` when idle.
    public let nextDeadline: Instant?
    /// A restart is waiting out its back-off.
    public let restartPending: Bool
}
