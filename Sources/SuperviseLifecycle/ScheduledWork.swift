import SuperviseProtocol

/// A scheduled task a child's config asks for (`[[child.schedule]]`): run every `every`, the
/// first time `every` after the child's core is made, again `every` after each run of it ends.
public struct ConfiguredSchedule: Equatable, Sendable {
    public var id: TaskID
    public var kind: ScheduledTaskKind
    public var every: Duration
    public var requires: Set<ScheduleCondition>

    public init(id: TaskID, kind: ScheduledTaskKind, every: Duration, requires: Set<ScheduleCondition> = []) {
        self.id = id
        self.kind = kind
        self.every = every
        self.requires = requires
    }
}

/// A scheduled task waiting to run: requested by the child (`schedule`) or configured.
public struct PendingSchedule: Equatable, Sendable {
    public var id: TaskID
    public var kind: ScheduledTaskKind
    public var requires: Set<ScheduleCondition>
    /// When it was requested (for a configured one: when it was last armed).
    public var requestedAt: Instant
    /// It may not run before this instant.
    public var dueAt: Instant
    /// A configured schedule's period: armed again after each run; `nil` for a request, which
    /// runs once.
    public var every: Duration?
    /// It fell due while a condition it requires did not hold: it waits for the conditions, not
    /// for a time.
    var waitsForConditions = false
    /// The user asked to run it now (`run-task`): due, whatever its conditions.
    var forced = false
}

/// The scheduled tasks of one child, kept across its runs (the supervisor's, not a process's:
/// a reclaimed or exited child keeps them, as iOS keeps a BGTaskScheduler's requests across
/// launches). At most ``requestLimit`` requested by the child; configured ones besides.
public struct ScheduledWork: Equatable, Sendable {
    /// Pending tasks by ID.
    public private(set) var pending: [TaskID: PendingSchedule] = [:]
    /// The configured schedules, by ID: their IDs are not the child's to request or cancel.
    let configured: [TaskID: ConfiguredSchedule]

    /// How many scheduled tasks a child may have requested and pending at once.
    public static let requestLimit = 16

    /// The configured schedules, each armed `every` from `now`.
    init(configured schedules: [ConfiguredSchedule], at now: Instant) {
        var configured: [TaskID: ConfiguredSchedule] = [:]
        for schedule in schedules { configured[schedule.id] = schedule }
        self.configured = configured
        for schedule in configured.values { arm(schedule, at: now) }
    }

    /// How many pending tasks the child requested.
    var requestedCount: Int { pending.values.count { $0.every == nil } }

    /// `schedule`: the request, replacing a pending one of the same ID; the refusal's code when
    /// it can't be kept.
    mutating func submit(_ request: ScheduleRequest, at now: Instant) -> ProtocolErrorCode? {
        if configured[request.id] != nil { return .duplicateID }
        if pending[request.id] == nil, requestedCount >= Self.requestLimit { return .tooManySchedules }
        pending[request.id] = PendingSchedule(
            id: request.id, kind: request.kind, requires: request.requires, requestedAt: now,
            dueAt: now + .milliseconds(request.earliestMS), every: nil)
        return nil
    }

    /// `cancel`: whether a requested task of that ID was pending.
    mutating func cancel(_ id: TaskID) -> Bool {
        guard configured[id] == nil else { return false }
        return pending.removeValue(forKey: id) != nil
    }

    /// Takes the task to run now: the earliest due (then the first by ID) whose every condition
    /// is in `holding`. Those due whose conditions do not hold are marked as waiting for them.
    mutating func takeReady(at now: Instant, holding: Set<ScheduleCondition>) -> PendingSchedule? {
        var ready: PendingSchedule?
        for (id, task) in pending where task.dueAt <= now {
            guard task.forced || task.requires.isSubset(of: holding) else {
                pending[id]?.waitsForConditions = true
                continue
            }
            if ready.map({ (task.dueAt, task.id.rawValue) < ($0.dueAt, $0.id.rawValue) }) ?? true { ready = task }
        }
        guard let ready else { return nil }
        pending[ready.id] = nil
        return ready
    }

    /// `run-task`: the pending task `id` is due now, whatever its conditions; whether it is pending.
    mutating func force(_ id: TaskID, at now: Instant) -> Bool {
        guard var task = pending[id] else { return false }
        task.forced = true
        task.waitsForConditions = false
        task.dueAt = min(task.dueAt, now)
        pending[id] = task
        return true
    }

    /// Takes the pending task `id` to run it now (`run-task` of an exited child).
    mutating func take(_ id: TaskID) -> PendingSchedule? {
        pending.removeValue(forKey: id)
    }

    /// `task` was taken to launch the child for it, and the launch ended first: it is pending
    /// again, due as it was (unless the ID was requested anew meanwhile).
    mutating func putBack(_ task: PendingSchedule) {
        guard pending[task.id] == nil else { return }
        var task = task
        task.forced = false
        task.waitsForConditions = false
        pending[task.id] = task
    }

    /// A configured schedule's run ended at `now`: it is armed again, `every` from now.
    mutating func rearm(_ id: TaskID, at now: Instant) {
        guard let schedule = configured[id], pending[id] == nil else { return }
        arm(schedule, at: now)
    }

    private mutating func arm(_ schedule: ConfiguredSchedule, at now: Instant) {
        pending[schedule.id] = PendingSchedule(
            id: schedule.id, kind: schedule.kind, requires: schedule.requires, requestedAt: now,
            dueAt: now + schedule.every, every: schedule.every)
    }

    /// The conditions held changed: every task waiting for conditions is looked at again.
    mutating func conditionsChanged() {
        for id in pending.keys { pending[id]?.waitsForConditions = false }
    }

    /// When the next task falls due, those waiting for conditions aside.
    var nextDue: Instant? {
        var next: Instant?
        for task in pending.values where !task.waitsForConditions { next = earliest(next, task.dueAt) }
        return next
    }

    /// The conditions that due tasks wait for and that do not hold: what the shell watches.
    func awaitedConditions(holding: Set<ScheduleCondition>) -> Set<ScheduleCondition> {
        guard !pending.isEmpty else { return [] }
        var awaited: Set<ScheduleCondition> = []
        for task in pending.values where task.waitsForConditions { awaited.formUnion(task.requires) }
        return awaited.subtracting(holding)
    }

}
