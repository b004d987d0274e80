/// How a run of a child begins.
public enum RunStart: Equatable, Sendable {
    /// Launched as its settings say (`launch`): the first run, or a restart.
    case configured
    /// Not launched at all: `not-running` until an event launches it (`autostart = false`).
    case notStarted
    /// Launched into the background for an event, which it gets with the launch;
    /// `afterReclaim` when the run before was reclaimed.
    case forEvent(kind: String, text: String?, afterReclaim: Bool)
    /// Launched into the background for a due scheduled task, whose entry it makes with the
    /// launch; `afterReclaim` when the run before was reclaimed.
    case forTask(ScheduledTaskStart, afterReclaim: Bool)
}
