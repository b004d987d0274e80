import SuperviseProtocol
import Synchronization

/// A scheduled task the supervisor started (`task ID KIND LIMIT_MS`), handed to its launch
/// handler, as `BGTask`: set ``expirationHandler`` at once, and call
/// ``setTaskCompleted(success:)`` when the work is finished.
public final class ScheduledTask: Sendable {
    /// The identifier it was registered and submitted with.
    public let identifier: String
    /// `refresh` or `processing`, as submitted.
    public let kind: ScheduledTaskKind
    /// How long the supervisor lets it run (`LIMIT_MS`); `expire` comes before.
    public let limit: Duration

    private let scheduler: BackgroundTaskScheduler
    private let state = Mutex<(handler: (@Sendable () -> Void)?, expired: Bool, completed: Bool)>(
        (nil, false, false))

    init(identifier: String, kind: ScheduledTaskKind, limit: Duration, scheduler: BackgroundTaskScheduler) {
        self.identifier = identifier
        self.kind = kind
        self.limit = limit
        self.scheduler = scheduler
    }

    /// Called once, on the reader thread, when the task is about to run out of time
    /// (`expire ID`) or the supervisor goes away: stop the work, then complete the task.
    public var expirationHandler: (@Sendable () -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// Tells the supervisor the work is finished: `task-completed ID success|failure`, once;
    /// later calls do nothing.
    public func setTaskCompleted(success: Bool) {
        let isFirst = state.withLock { state in
            defer { state.completed = true }
            return !state.completed
        }
        if isFirst { scheduler.completed(self, success: success) }
    }

    /// The expiration handler to call now, once, unless the task is completed.
    func expire() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard !state.expired, !state.completed else { return nil }
            state.expired = true
            return state.handler
        }
    }
}
