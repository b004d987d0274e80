/// What a scheduled background task is, as BackgroundTasks' two requests: a short `refresh`
/// (`BGAppRefreshTaskRequest`) or a longer, deferrable `processing` (`BGProcessingTaskRequest`).
public enum ScheduledTaskKind: String, Sendable, CaseIterable {
    case refresh
    case processing
}
