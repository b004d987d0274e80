import Glibc
import SuperviseProtocol
import Synchronization

/// A process run by `supervise`, seen from inside, with the shape of `UIApplication`.
///
/// Use ``shared`` (or ``launch(delegate:backgroundEntryCompletion:)`` to set the delegate
/// before any event can arrive). It takes the channels `supervise` passes in the environment
/// only when `SUPERVISE_PID` is this process's pid; then it marks them close-on-exec,
/// removes the `SUPERVISE_*` variables, sends `hello 1` and starts a thread blocked in
/// `read(2)` on the events channel. A process not run by `supervise` gets an instance that
/// is not ``isSupervised``: its background tasks are ``BackgroundTaskIdentifier/invalid``
/// and it never receives events, so it runs normally.
///
/// All members are thread-safe. Delegate methods and expiration handlers run on the reader
/// thread, one at a time, in the order the supervisor sent the events.
public final class SuperviseApplication: Sendable {
    /// True when this instance talks to a supervisor.
    public let isSupervised: Bool
    /// The name the supervisor knows this process by (`SUPERVISE_NAME`), if any.
    public let name: String?

    /// Submits and runs this process's scheduled background tasks (``BackgroundTaskScheduler``).
    public let taskScheduler: BackgroundTaskScheduler

    let channel: RequestChannel?
    let state: Mutex<State>

    /// Everything that changes, behind one lock.
    struct State {
        var delegate: (any SuperviseApplicationDelegate)?
        var completion: BackgroundEntryCompletion
        var applicationState: ApplicationState
        /// When the current `did-enter-background` was read, and its limit.
        var backgroundEntry: (readAt: UInt64, limitMS: Int64)?
        var connected: Bool
        /// `did-finish-launching … reclaimed` was read.
        var wasReclaimed = false
        var nextTaskNumber = 1
        var expirationHandlers: [Int: (@Sendable () -> Void)?] = [:]
        var lastCompletedEntry: UInt64 = 0
        var streams: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextStreamNumber = 0
        /// Events read before the first ``events()`` stream, replayed to it; `nil` once a
        /// stream was made or too many events were read.
        var backlog: [Event]? = []
    }

    /// Connects to a supervisor through an already open pair of pipe ends, for example in
    /// tests. Takes ownership of both descriptors: marks them close-on-exec, makes the
    /// events one blocking, sends `hello 1` and starts reading events.
    public init(
        eventsFD: Int32,
        requestsFD: Int32,
        name: String? = nil,
        delegate: (any SuperviseApplicationDelegate)? = nil,
        backgroundEntryCompletion: BackgroundEntryCompletion = .automatic
    ) {
        for fd in [eventsFD, requestsFD] {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
        _ = fcntl(eventsFD, F_SETFL, fcntl(eventsFD, F_GETFL) & ~O_NONBLOCK)
        isSupervised = true
        self.name = name
        channel = RequestChannel(fd: requestsFD)
        taskScheduler = BackgroundTaskScheduler(channel: channel)
        state = Mutex(State(
            delegate: delegate, completion: backgroundEntryCompletion,
            applicationState: .inactive, connected: true))
        channel?.send(.hello)
        DetachedThread.start { [self] in readEvents(from: eventsFD) }
    }

    /// Reads the environment: connects to the supervisor when the channels there are meant
    /// for this process, and otherwise makes an instance that is not ``isSupervised``.
    ///
    /// Prefer ``shared``: only the first instance can take the channels.
    public convenience init(
        delegate: (any SuperviseApplicationDelegate)? = nil,
        backgroundEntryCompletion: BackgroundEntryCompletion = .automatic
    ) {
        if let environment = SupervisorEnvironment.take() {
            self.init(
                eventsFD: environment.eventsFD, requestsFD: environment.requestsFD, name: environment.name,
                delegate: delegate, backgroundEntryCompletion: backgroundEntryCompletion)
        } else {
            self.init(unsupervisedWith: delegate, backgroundEntryCompletion: backgroundEntryCompletion)
        }
    }

    private init(
        unsupervisedWith delegate: (any SuperviseApplicationDelegate)?,
        backgroundEntryCompletion: BackgroundEntryCompletion
    ) {
        isSupervised = false
        name = nil
        channel = nil
        taskScheduler = BackgroundTaskScheduler(channel: nil)
        state = Mutex(State(
            delegate: delegate, completion: backgroundEntryCompletion,
            applicationState: .active, connected: false, backlog: nil))
    }

    /// Receives the lifecycle events; held strongly. Events delivered before it is set are
    /// not replayed to it.
    public var delegate: (any SuperviseApplicationDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Who sends `done SEQ` for a background entry; see ``BackgroundEntryCompletion``.
    public var backgroundEntryCompletion: BackgroundEntryCompletion {
        get { state.withLock { $0.completion } }
        set { state.withLock { $0.completion = newValue } }
    }

    /// Foreground, in transition, or background, as the events so far say. `.active` when
    /// not supervised; `.inactive` from connecting until the first event.
    public var applicationState: ApplicationState {
        state.withLock { $0.applicationState }
    }

    /// True when this launch said `reclaimed`: the supervisor killed the process before this
    /// one while it was suspended, to take back memory, and launched this one for an event.
    /// Restore what was saved on entering the background (iOS's state restoration). Set
    /// before `application(_:didFinishLaunchingIn:)` is called.
    public var wasReclaimed: Bool {
        state.withLock { $0.wasReclaimed }
    }

    /// True while the events channel is open: from connecting until the supervisor goes away.
    public var isConnected: Bool {
        state.withLock { $0.connected }
    }

    /// Seconds the process may still run in the background, as UIKit's property: the
    /// largest finite `Double` in the foreground (UIKit's `DBL_MAX`); in the background
    /// `LIMIT_MS` minus the time since `did-enter-background` was read (CLOCK_MONOTONIC),
    /// never below zero. An upper bound: the supervisor counts from when it wrote the line.
    public var backgroundTimeRemaining: Double {
        state.withLock { state in
            guard state.applicationState == .background, let entry = state.backgroundEntry else {
                return .greatestFiniteMagnitude
            }
            let elapsed = Double(MonotonicClock.now() &- entry.readAt) / 1e9
            return max(0, Double(entry.limitMS) / 1e3 - elapsed)
        }
    }

    /// Begins a background task (`begin ID NAME`), which keeps the process running in the
    /// background until ``endBackgroundTask(_:)`` or the limit, as `UIApplication`'s method.
    ///
    /// `handler` is called, at most once and on the reader thread, when the task is about to
    /// run out of time (`expire`), when the supervisor refuses it, or when the supervisor
    /// goes away; it should end the task promptly. Returns
    /// ``BackgroundTaskIdentifier/invalid`` when not supervised or no longer connected.
    public func beginBackgroundTask(
        withName taskName: String? = nil,
        expirationHandler handler: (@Sendable () -> Void)? = nil
    ) -> BackgroundTaskIdentifier {
        beginTask(named: taskName) { _ in handler }
    }

    /// Begins a background task whose expiration handler is given the task's identifier, so
    /// it can end the task without capturing a variable (which Swift 6 forbids in a
    /// `@Sendable` closure):
    /// `app.beginBackgroundTask(withName: "upload") { task in app.endBackgroundTask(task) }`.
    public func beginBackgroundTask(
        withName taskName: String? = nil,
        expirationHandler handler: @escaping @Sendable (BackgroundTaskIdentifier) -> Void
    ) -> BackgroundTaskIdentifier {
        beginTask(named: taskName) { identifier in { handler(identifier) } }
    }

    private func beginTask(
        named taskName: String?,
        handler makeHandler: (BackgroundTaskIdentifier) -> (@Sendable () -> Void)?
    ) -> BackgroundTaskIdentifier {
        guard let channel else { return .invalid }
        let number: Int? = state.withLock { state in
            guard state.connected else { return nil }
            let number = state.nextTaskNumber
            state.nextTaskNumber += 1
            state.expirationHandlers[number] = .some(makeHandler(BackgroundTaskIdentifier(rawValue: number)))
            return number
        }
        guard let number else { return .invalid }
        channel.send(.begin(id: Self.taskID(number), name: taskName))
        return BackgroundTaskIdentifier(rawValue: number)
    }

    /// Ends a background task (`end ID`). Ending ``BackgroundTaskIdentifier/invalid`` or a
    /// task already ended does nothing.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) {
        guard let channel, identifier != .invalid else { return }
        let wasOpen = state.withLock { state in
            state.expirationHandlers.removeValue(forKey: identifier.rawValue) != nil && state.connected
        }
        if wasOpen { channel.send(.end(id: Self.taskID(identifier.rawValue))) }
    }

    /// Tells the supervisor that the handler of background entry `seq` (the `did-enter-background`
    /// and `event` with that number) has returned: `done SEQ`. Only needed with
    /// ``BackgroundEntryCompletion/manual``; an entry is completed once, later calls for it
    /// (or an older one) do nothing.
    public func completeBackgroundEntry(_ seq: UInt64) {
        guard let channel else { return }
        let isNew = state.withLock { state in
            guard state.connected, seq > state.lastCompletedEntry else { return false }
            state.lastCompletedEntry = seq
            return true
        }
        if isNew { channel.send(.done(seq: seq)) }
    }

    /// A stream of every event, in order, from now on; the first stream made also gets the
    /// events read before it, if it is made before 256 were read. It finishes after the `will-terminate 0` that stands for the
    /// supervisor going away, and at once when not supervised. With
    /// ``BackgroundEntryCompletion/manual``, call ``completeBackgroundEntry(_:)`` after
    /// handling a `did-enter-background`.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let number: Int? = state.withLock { state in
            guard state.connected else { return nil }
            for event in state.backlog ?? [] { continuation.yield(event) }
            state.backlog = nil
            let number = state.nextStreamNumber
            state.nextStreamNumber += 1
            state.streams[number] = continuation
            return number
        }
        guard let number else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: number) }
        }
        return stream
    }

    static func taskID(_ number: Int) -> TaskID {
        TaskID(String(number))!
    }
}
