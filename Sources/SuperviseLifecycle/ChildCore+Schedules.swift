import SuperviseProtocol

extension ChildCore {
    /// The inputs about scheduled tasks, decided here as the tasks outlive the run: `schedule`,
    /// `cancel`, a `begin` of a pending task's ID (IDs are one namespace), the conditions, and
    /// `background` from the foreground while a task is ready (its entry is the task's).
    /// `nil` for every other input.
    mutating func decideForSchedules(_ input: LifecycleInput, at now: Instant) -> [LifecycleAction]? {
        switch input {
        case .request(let request) where !lifecycle.hasNoProcess:
            switch request {
            case .schedule(let schedule):
                if lifecycle.openTasks.contains(schedule.id), lifecycle.runningTask?.id != schedule.id {
                    return refusal(.duplicateID, request)
                }
                return work.submit(schedule, at: now).map { refusal($0, request) } ?? []
            case .cancel(let id):
                return work.cancel(id) ? [] : refusal(.unknownID, request)
            case .begin(let id, _) where work.pending[id] != nil:
                return refusal(.duplicateID, request)
            case .hello, .done, .begin, .end, .taskCompleted:
                return nil
            }
        case .runTask(let id):
            return runTask(id, now)
        case .conditions(let holding):
            conditions = holding
            work.conditionsChanged()
            return []
        case .background where lifecycle.state == .active && lifecycle.runningTask == nil:
            // Over the unread bound, the lifecycle refuses the move, task or not.
            guard !lifecycle.isOverLifecycleEventsLimit, let task = work.takeReady(at: now, holding: conditions) else { return nil }
            return lifecycle.runScheduledTask(start(task), at: now)
        default:
            return nil
        }
    }

    /// `run-task`: the pending task is due now, whatever its conditions; an exited child is
    /// launched for it at once, as for an event (a restart pending is cancelled).
    private mutating func runTask(_ id: TaskID, _ now: Instant) -> [LifecycleAction] {
        if lifecycle.hasNoProcess, stopped { return [.refuse("cannot run task \(id): the child was told to terminate")] }
        // Its background entry's events would join those the child has not read.
        if !lifecycle.hasNoProcess,
           let refusal = lifecycle.unreadRefusal("cannot run task \(id)", over: ChildLifecycle.unreadLifecycleEventsLimit) {
            return [refusal]
        }
        guard work.force(id, at: now) else {
            let why = lifecycle.runningTask?.id == id ? "it is running" : "no scheduled task of that ID is pending"
            return [.refuse("cannot run task \(id): \(why)")]
        }
        guard lifecycle.state == .exited, lifecycle.isFinished, let task = work.take(id) else { return [] }
        var actions: [LifecycleAction] = restartAt != nil ? [.restartCancelled] : []
        launch(for: task, &actions)
        return actions
    }

    private func refusal(_ code: ProtocolErrorCode, _ request: Request) -> [LifecycleAction] {
        [.send(.error(RequestError(code: code, request: String(request.line.dropLast()))))]
    }

    /// After each input: a task that ended is armed again if configured, a failure kept; the
    /// task of a launch that ended before its entry began is pending again, none is lost.
    mutating func scheduledTaskEnded(since before: ScheduledTaskRecord?, _ now: Instant) {
        if let before, lifecycle.runningTask == nil {
            work.rearm(before.id, at: now)
        }
        if failedTask == nil { failedTask = lifecycle.firstFailedTask }
        if let task = launchedFor, lifecycle.launchTask == nil || lifecycle.hasNoProcess {
            launchedFor = nil
            if lifecycle.launchTask != nil { work.putBack(task) }
        }
    }

    /// After each input: the ready task, if the child can take one, gets its background entry
    /// (thawing a suspended child), or a not-running child is launched for it.
    mutating func startReadyTask(_ now: Instant, _ actions: inout [LifecycleAction]) {
        guard canTakeTask, let task = work.takeReady(at: now, holding: conditions) else { return }
        guard lifecycle.hasNoProcess else {
            return actions += lifecycle.runScheduledTask(start(task), at: now)
        }
        launch(for: task, &actions)
    }

    /// A run launched into the background for `task`, whose entry it makes with the launch.
    private mutating func launch(for task: PendingSchedule, _ actions: inout [LifecycleAction]) {
        beginRun(.forTask(start(task), afterReclaim: lifecycle.exit?.by == .reclaim))
        launchedFor = task
        actions.append(.startRun)
    }

    /// A due task can start now: the run is in the background, suspending or suspended with no
    /// scheduled task running, or the child is not running (reclaimed or never started) and was
    /// not told to terminate. A child in the foreground gets its task when it next enters the
    /// background; an exited one, when a run starts (a restart, `start`, `event`, `run-task`).
    var canTakeTask: Bool {
        if lifecycle.state == .notRunning { return lifecycle.isFinished && !stopped && restartAt == nil }
        return lifecycle.canStartScheduledTask
    }

    /// When the next scheduled task falls due, if the child can take it then.
    var nextTaskDue: Instant? { canTakeTask ? work.nextDue : nil }

    /// The conditions due tasks wait for that do not hold.
    var awaitedConditions: Set<ScheduleCondition> { work.awaitedConditions(holding: conditions) }

    private func start(_ task: PendingSchedule) -> ScheduledTaskStart {
        let settings = lifecycle.settings
        return ScheduledTaskStart(id: task.id, kind: task.kind, requestedAt: task.requestedAt,
                                  limit: task.kind == .refresh ? settings.refreshTime : settings.processingTime)
    }
}
