import SuperviseProtocol

/// Everything decided about one child over all its runs: the current run's ``ChildLifecycle``,
/// the runs before it (the first and the last ``runLimit``, the rest summed), and when the next
/// one starts (``RestartRules``, ``RestartBackoff``, or an event for a child without a process).
///
/// Feed it every ``LifecycleInput`` with the instant it happened; carry out the actions of the
/// ``ChildDecision`` it returns, in order; the decision's ``ChildStatus`` is all the shell needs
/// to know until the next call.
public struct ChildCore: Sendable {
    public let restartRules: RestartRules
    /// The current run.
    public internal(set) var lifecycle: ChildLifecycle
    /// The runs before it: the first and the last ``runLimit``, oldest first.
    private var pastRuns = HeadTailBuffer<ChildLifecycle>(headLimit: ChildCore.runLimit, tailLimit: ChildCore.runLimit)
    /// The runs before it that are not kept, summed.
    public private(set) var omittedRuns = OmittedRuns()
    private var backoff: RestartBackoff
    var restartAt: Instant?
    private var runStartedAt: Instant?
    /// Told to terminate: no run starts again.
    var stopped = false
    /// The current run never started (exec failed).
    private var spawnFailed = false
    /// The user asked for `restart`: once the current run is over, the next starts at once.
    private var restartRequested = false
    /// Some run of this child was killed for a violation: the run's exit status says so.
    public private(set) var killedForViolation = false
    /// The scheduled tasks waiting to run, kept across runs.
    public internal(set) var work: ScheduledWork
    /// The conditions of scheduled tasks that hold, as last told (``LifecycleInput/conditions(_:)``):
    /// all of them until the shell says otherwise.
    public internal(set) var conditions = Set(ScheduleCondition.allCases)
    /// The first scheduled task of any run that completed with `failure`: the run's exit status
    /// says so.
    public internal(set) var failedTask: TaskID?
    /// The task the current run was launched for, until its entry begins: a launch that fails
    /// first (exec, the launch timeout) puts it back.
    var launchedFor: PendingSchedule?

    /// A child whose first run is launched, or with `autostart` false left `not-running`; its
    /// configured `schedules` are armed from `now`.
    public init(settings: LifecycleSettings, restart: RestartRules, freezerNotifies: Bool, autostart: Bool = true,
                schedules: [ConfiguredSchedule] = [], at now: Instant = .zero) {
        restartRules = restart
        lifecycle = ChildLifecycle(settings: settings, freezerNotifies: freezerNotifies,
                                   start: autostart ? .configured : .notStarted)
        backoff = RestartBackoff(restart)
        work = ScheduledWork(configured: schedules, at: now)
    }

    /// How many runs before the current one are kept at each end of the record.
    public static let runLimit = 100

    /// The kept runs' lifecycles, oldest first, the current one last (a child never started has
    /// one, `not-running`); those between the first and the last ``runLimit`` are in ``omittedRuns``.
    public var runs: [ChildLifecycle] { pastRuns.elements + [lifecycle] }

    /// How many runs there were, kept or not.
    public var runCount: Int { pastRuns.keptCount + omittedRuns.count + 1 }

    /// What the shell needs to know now.
    public var status: ChildStatus {
        ChildStatus(state: lifecycle.state, isFinished: lifecycle.isFinished,
                    nextDeadline: earliest(earliest(lifecycle.nextDeadline, restartAt), nextTaskDue),
                    restartPending: restartAt != nil, toldToTerminate: stopped,
                    lookGoesOn: lifecycle.lookGoesOn, thawGoesOn: lifecycle.thawGoesOn,
                    awaitedConditions: awaitedConditions)
    }

    /// Handles one input at `now`: the actions to carry out, in order, and the status after them.
    public mutating func handle(_ input: LifecycleInput, at now: Instant) -> ChildDecision {
        let taskBefore = lifecycle.runningTask
        var actions = decide(input, at: now)
        scheduledTaskEnded(since: taskBefore, now)
        startReadyTask(now, &actions)
        actions.sendEventsBeforeThawing()
        return ChildDecision(actions: actions, status: status)
    }

    /// The input's own decision, before any scheduled task is looked at.
    private mutating func decide(_ input: LifecycleInput, at now: Instant) -> [LifecycleAction] {
        if let actions = decideForSchedules(input, at: now) { return actions }
        if case .event(let kind, let text) = input, lifecycle.hasNoProcess {
            return launchForEvent(kind: kind, text: text)
        }
        if input == .start || (input == .restart && lifecycle.hasNoProcess) {
            return startByUser()
        }
        if input == .restart {
            // Terminated as `terminate` does, but not told to stay stopped.
            restartRequested = true
            stopped = false
            return lifecycle.handle(.terminate(escalate: false), at: now)
        }
        var actions = lifecycle.handle(input, at: now)
        if lifecycle.exit?.by == .violation { killedForViolation = true }
        switch input {
        case .launched:
            runStartedAt = now
        case .spawnFailed:
            spawnFailed = true
        case .terminate:
            stopped = true
            restartRequested = false
            if restartAt != nil {
                restartAt = nil
                actions.append(.restartCancelled)
            }
        case .runOver where restartRequested:
            restartRequested = false
            startNextRun(&actions)
        case .runOver:
            scheduleRestart(now, &actions)
        case .tick:
            if let at = restartAt, at <= now { startNextRun(&actions) }
        default:
            break
        }
        return actions
    }

    /// After a finished run: waits out the back-off if the rules restart it. A reclaimed run is
    /// never restarted: it waits for an event.
    private mutating func scheduleRestart(_ now: Instant, _ actions: inout [LifecycleAction]) {
        guard let exit = lifecycle.exit, lifecycle.isFinished, !stopped, !spawnFailed, restartAt == nil,
              exit.by != .reclaim
        else { return }
        let restart = restartRules.shouldRestart(status: exit.termination.shellStatus,
                                                 killedForViolation: exit.by == .violation,
                                                 stoppedBySupervisor: exit.by == .terminate || exit.by == .kill)
        guard restart else { return }
        let delay = backoff.delay(afterRunOf: now - (runStartedAt ?? now))
        restartAt = now + delay
        actions.append(.restartScheduled(after: delay, run: runCount + 1))
    }

    private mutating func startNextRun(_ actions: inout [LifecycleAction]) {
        beginRun(.configured)
        actions.append(.startRun)
    }

    /// `event` to a child without a process: the user's act, not a restart. Launches a run into
    /// the background for it (cancelling a pending restart), unless the child was told to
    /// terminate or what its last run left behind is still being stopped.
    private mutating func launchForEvent(kind: String, text: String?) -> [LifecycleAction] {
        let refusal = "cannot deliver event '\(kind)'"
        if stopped { return [.refuse("\(refusal): the child was told to terminate")] }
        guard lifecycle.isFinished else {
            return [.refuse("\(refusal): processes its last run left behind are still being stopped")]
        }
        var actions: [LifecycleAction] = []
        if restartAt != nil { actions.append(.restartCancelled) }
        beginRun(.forEvent(kind: kind, text: text, afterReclaim: lifecycle.exit?.by == .reclaim))
        actions.append(.startRun)
        return actions
    }

    /// `start`, or `restart` of a child without a process: the user's act, not a restart, so it
    /// works whatever the restart rules and even after `terminate`. Launches a run as configured
    /// (cancelling a pending restart) unless the child has a process or what its last run left
    /// behind is still being stopped.
    private mutating func startByUser() -> [LifecycleAction] {
        guard lifecycle.hasNoProcess else {
            return [.refuse("cannot start: it is \(lifecycle.state.rawValue) (restart terminates and starts it)")]
        }
        guard lifecycle.isFinished else {
            return [.refuse("cannot start: processes its last run left behind are still being stopped")]
        }
        var actions: [LifecycleAction] = []
        if restartAt != nil { actions.append(.restartCancelled) }
        stopped = false
        restartRequested = false
        startNextRun(&actions)
        return actions
    }

    /// Makes a fresh lifecycle for the next run; a run that never started is replaced, not kept.
    /// The new run records what is left of the child's task records.
    mutating func beginRun(_ start: RunStart) {
        restartAt = nil
        runStartedAt = nil
        spawnFailed = false
        if lifecycle.launchedAt != nil || lifecycle.exit != nil, let dropped = pastRuns.append(lifecycle.asRecord) {
            omittedRuns.add(dropped)
        }
        let tasksKept = pastRuns.elements.reduce(0) { $0 + $1.taskHistory.count }
        lifecycle = ChildLifecycle(settings: lifecycle.settings, freezerNotifies: lifecycle.freezerNotifies,
                                   start: start, taskRecordLimit: max(ChildLifecycle.taskHistoryLimit - tasksKept, 0))
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
    /// It was told to terminate: no run starts again, not even for an event.
    public let toldToTerminate: Bool
    /// A look at it for a change from outside goes on at the next turn: commands to it wait.
    public var lookGoesOn = false
    /// A thaw of it goes on at the next turn: commands to it wait, so that none finds part of its
    /// tree still stopped.
    public var thawGoesOn = false
    /// The conditions that its due scheduled tasks wait for and that do not hold: while not
    /// empty, the shell watches (or polls) them.
    public var awaitedConditions: Set<ScheduleCondition> = []
}
