import SuperviseProtocol

extension ChildLifecycle {
    /// The scheduled tasks of this run, in the order they started: those ended, then the one
    /// running.
    public var scheduledTasks: [ScheduledTaskRecord] { endedTasks + (runningTask.map { [$0] } ?? []) }

    /// Whether a due scheduled task can have its background entry now: in the background,
    /// suspending or suspended, and no scheduled task running.
    var canStartScheduledTask: Bool {
        guard runningTask == nil else { return false }
        switch state {
        case .background, .suspending, .suspended: return true
        case .launching, .active, .terminating, .exited, .notRunning: return false
        }
    }

    /// Runs `task` now, as one decision: a new background entry made for it, thawing a suspended
    /// child, or (`from the foreground`, the `background` command) leaving the foreground.
    mutating func runScheduledTask(_ task: ScheduledTaskStart, at now: Instant) -> [LifecycleAction] {
        actions.removeAll(keepingCapacity: true)
        let before = state
        defer { account(leaving: before, at: now) }
        switch state {
        case .active: send(.willResignActive)
        case .background: continueIfStopped()
        case .suspending, .suspended: thaw()
        case .launching, .terminating, .exited, .notRunning: return actions
        }
        announceBackgroundEntry(task: task)
        beginScheduledTaskEntry(task, now)
        return actions
    }

    /// The announced entry made for `task` starts: the task is open under its ID, its time the
    /// entry's limit, so it ends as a `begin` task at the limit does (`expire`, then the kill).
    mutating func beginScheduledTaskEntry(_ task: ScheduledTaskStart, _ now: Instant) {
        runningTask = ScheduledTaskRecord(id: task.id, kind: task.kind, requestedAt: task.requestedAt, startedAt: now,
                                          limit: task.limit, seq: seq)
        openTasks.append(TaskReference(id: task.id, name: task.kind.rawValue))
        actions.append(.note("scheduled task \(task.id) (\(task.kind.rawValue)) started: \(task.limit.formatted)"))
        startBackgroundEntry(now, limit: task.limit)
    }

    /// `task-completed ID success|failure` (or `end ID`) of the running task: it ends, and the
    /// entry made for it counts as done, so the child is frozen again once nothing else holds it.
    mutating func completeScheduledTask(_ id: TaskID, success: Bool, _ request: Request, _ now: Instant) {
        guard let task = runningTask, task.id == id else { return refuse(.unknownID, request) }
        openTasks.remove(id)
        expireSent.remove(id)
        endScheduledTask(success ? .success : .failure, now)
        if state == .background, seq == task.seq { doneForCurrentEntry = true }
        suspendIfSettled(now)
    }

    /// The running scheduled task, if any, ended at `now` as `outcome`.
    mutating func endScheduledTask(_ outcome: ScheduledTaskRecord.Outcome, _ now: Instant) {
        guard var task = runningTask else { return }
        runningTask = nil
        task.endedAt = now
        task.outcome = outcome
        if outcome == .failure, firstFailedTask == nil { firstFailedTask = task.id }
        actions.append(.note("scheduled task \(task.id) ended: \(outcome.rawValue)"))
        guard endedTasks.count < Self.scheduledTaskRecordLimit else { return scheduledTasksNotRecorded += 1 }
        endedTasks.append(task)
    }
}
