/// The two kinds of scheduled background task, as BackgroundTasks' `BGAppRefreshTaskRequest`
/// and `BGProcessingTaskRequest`: they differ in the time the task is given.
public enum ScheduledTaskKind: String, CaseIterable, Sendable {
    /// A short task (the supervisor's `--refresh-time`, 30 s by default).
    case refresh
    /// A longer task (the supervisor's `--processing-time`, 5 min by default).
    case processing
}

/// A child's `schedule` request: run task `id` of `kind` once `earliestMS` milliseconds have
/// passed since the request and while every condition in `requires` holds.
public struct ScheduleRequest: Equatable, Sendable {
    public var id: TaskID
    public var kind: ScheduledTaskKind
    /// Milliseconds from the request before the task may begin (`earliest=`; 0 when left out).
    public var earliestMS: Int64
    public var requires: Set<ScheduleCondition>

    public init(id: TaskID, kind: ScheduledTaskKind, earliestMS: Int64 = 0, requires: Set<ScheduleCondition> = []) {
        self.id = id
        self.kind = kind
        self.earliestMS = earliestMS
        self.requires = requires
    }
}
