import SuperviseProtocol
import Synchronization

/// Asks the supervisor to wake the process in the background later, for deferrable work, as
/// `BGTaskScheduler`: register a launch handler for each task identifier early (before the
/// first event can start it), then submit requests; the supervisor sends `task ID KIND
/// LIMIT_MS` when the request is due and its conditions hold, and the launch handler is
/// called with a ``ScheduledTask``.
///
/// Launch handlers run on the reader thread, one at a time with the delegate's methods; as
/// there, return promptly and do the work on another thread. With
/// ``BackgroundEntryCompletion/automatic`` completion, returning from the launch handler
/// sends `done SEQ` for the background entry the task came in; the task keeps the process
/// running until ``ScheduledTask/setTaskCompleted(success:)`` or its limit.
public final class BackgroundTaskScheduler: Sendable {
    /// The scheduler of ``SuperviseApplication/shared``.
    public static var shared: BackgroundTaskScheduler { SuperviseApplication.shared.taskScheduler }

    /// Why a request was not submitted (`BGTaskScheduler.Error`).
    public enum Error: Swift.Error, Equatable, Sendable {
        /// Not run by `supervise`, or the supervisor is gone.
        case unavailable
        /// No launch handler is registered for the identifier.
        case notPermitted
    }

    private struct State {
        var connected: Bool
        var launchHandlers: [String: @Sendable (ScheduledTask) -> Void] = [:]
        /// The tasks started and not completed, by identifier.
        var running: [String: ScheduledTask] = [:]
    }

    private let channel: RequestChannel?
    private let state: Mutex<State>

    init(channel: RequestChannel?) {
        self.channel = channel
        state = Mutex(State(connected: channel != nil))
    }

    /// Registers the handler that runs task `identifier`; false (and nothing registered) for
    /// an identifier registered already or not a protocol task ID: 1–64 characters of
    /// `[A-Za-z0-9._-]`, not all digits (those name the assertions of
    /// ``SuperviseApplication/beginBackgroundTask(withName:expirationHandler:)``).
    @discardableResult
    public func register(
        forTaskWithIdentifier identifier: String,
        launchHandler: @escaping @Sendable (ScheduledTask) -> Void
    ) -> Bool {
        guard TaskID(identifier) != nil, !identifier.allSatisfy(\.isASCIIDigit) else { return false }
        return state.withLock { state in
            guard state.launchHandlers[identifier] == nil else { return false }
            state.launchHandlers[identifier] = launchHandler
            return true
        }
    }

    /// Sends `schedule ID KIND [earliest=MSms] [requires=…]`; a request with the identifier of
    /// one still pending replaces it.
    public func submit(_ request: some BackgroundTaskRequest) throws(Error) {
        guard let channel, let id = TaskID(request.identifier) else {
            throw channel == nil ? .unavailable : .notPermitted
        }
        let (connected, registered) = state.withLock { ($0.connected, $0.launchHandlers[id.rawValue] != nil) }
        guard connected else { throw .unavailable }
        guard registered else { throw .notPermitted }
        let schedule = Request.schedule(ScheduleRequest(
            id: id, kind: request.kind, earliestMS: Self.millisecondsRoundedUp(request.earliestBeginDate ?? .zero),
            requires: request.requiredConditions))
        guard channel.send(schedule) else { throw .unavailable }
    }

    /// Sends `cancel ID`: the pending request `identifier` will not run. A task already
    /// running is not stopped.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        guard let channel, let id = TaskID(identifier), state.withLock({ $0.connected }) else { return }
        channel.send(.cancel(id: id))
    }

    /// `task ID KIND LIMIT_MS`: calls the launch handler with a new task; with no handler,
    /// answers `task-completed ID failure` at once, so the supervisor does not wait for it.
    func launch(_ id: TaskID, kind: ScheduledTaskKind, limitMS: Int64) {
        let task = ScheduledTask(identifier: id.rawValue, kind: kind, limit: .milliseconds(limitMS), scheduler: self)
        let handler = state.withLock { state in
            let handler = state.launchHandlers[id.rawValue]
            if handler != nil { state.running[id.rawValue] = task }
            return handler
        }
        guard let handler else {
            channel?.send(.taskCompleted(id: id, success: false))
            return
        }
        handler(task)
    }

    /// `expire ID` for a running task: its expiration handler, to call once; `nil` otherwise.
    func expirationHandler(for id: TaskID) -> (@Sendable () -> Void)? {
        state.withLock { $0.running[id.rawValue] }?.expire()
    }

    /// The supervisor is gone: no more requests; the running tasks' handlers, to call.
    func disconnect() -> [@Sendable () -> Void] {
        let tasks = state.withLock { state in
            state.connected = false
            return Array(state.running.values)
        }
        return tasks.compactMap { $0.expire() }
    }

    /// ``ScheduledTask/setTaskCompleted(success:)``: sends `task-completed` once per task.
    func completed(_ task: ScheduledTask, success: Bool) {
        let connected = state.withLock { state in
            if state.running[task.identifier] === task { state.running[task.identifier] = nil }
            return state.connected
        }
        guard connected, let channel, let id = TaskID(task.identifier) else { return }
        channel.send(.taskCompleted(id: id, success: success))
    }
}

extension BackgroundTaskScheduler {
    /// Whole milliseconds, rounded up (an earliest time is never brought forward), a negative
    /// duration as 0, saturated at `Int64.max`.
    static func millisecondsRoundedUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return 0 }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let part = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (sum, sumOverflow) = scaled.addingReportingOverflow(part)
        return overflow || sumOverflow ? Int64.max : sum
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
