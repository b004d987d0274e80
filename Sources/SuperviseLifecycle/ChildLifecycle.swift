import SuperviseProtocol

/// The lifecycle of one child: every rule of protocol 1, with no I/O and no clock.
///
/// Feed it ``LifecycleInput``s with the instant they happened; carry out the
/// ``LifecycleAction``s it returns, in order; ask ``nextDeadline`` when to send `.tick`.
public struct ChildLifecycle: Sendable {
    public let settings: LifecycleSettings

    public internal(set) var state: ChildState = .launching
    /// `hello 1` was read before the first window ended (for a child expected to be aware,
    /// `--aware`: was read at all).
    public internal(set) var aware = false
    /// The open task assertions, in the order they began.
    public internal(set) var openTasks = OpenTasks()
    /// Every task this run asked for (up to ``taskRecordLimit``), for the report.
    public internal(set) var taskHistory: [TaskRecord] = []
    /// How many task records this run keeps: what is left of the child's ``taskHistoryLimit``
    /// after the runs kept before it.
    let taskRecordLimit: Int
    /// Tasks not kept in ``taskHistory`` because it was full.
    public internal(set) var tasksNotRecorded = 0
    /// Broken timing rules: the first and the last ``violationLimit`` (more only with
    /// `--on-window-overrun suspend`, which judges one per background entry).
    public internal(set) var violationRecords = HeadTailBuffer<Violation>(
        headLimit: ChildLifecycle.violationLimit, tailLimit: ChildLifecycle.violationLimit)
    public internal(set) var exit: ExitRecord?
    /// When the run's process was launched; `nil` when it never ran (exec failed).
    public internal(set) var launchedAt: Instant?
    /// How long the run spent out of the foreground before it exited: in the background,
    /// suspending or suspended (the state it is in now counts once it is left).
    public internal(set) var backgroundTime: Duration = .zero
    /// How many times a freeze of the run was verified.
    public internal(set) var freezes = 0
    /// When the current state was entered (for a suspended child: since when it is suspended).
    public internal(set) var stateEnteredAt: Instant?
    /// The signal that stopped the main process, while it is stopped by one (not by the
    /// freezer): whatever the state says, the child can't run until it is continued.
    public internal(set) var stoppedBy: Int32?

    /// How many task records one child keeps over all its runs; a flooding child can't grow the
    /// supervisor further.
    public static let taskHistoryLimit = 100_000
    /// How many violations are kept at each end of a run.
    public static let violationLimit = 1_000

    /// The violations kept, in the order judged.
    public var violations: [Violation] { violationRecords.elements }

    // Background entry.
    var seq: UInt64 = 0
    var doneForCurrentEntry = false
    var windowPassed = false
    var windowEnd: Instant?
    var warningAt: Instant?
    /// When the expiry warning sent `expire` to the open tasks; the kill waits the warning from it.
    var warningSentAt: Instant?
    var limitAt: Instant?

    // Awareness.
    var saidHello = false
    var firstWindowClosed = false

    // Tasks.
    var historyIndex: [TaskID: Int] = [:]
    var expireSent: Set<TaskID> = []
    var refusedIDs: Set<TaskID> = []

    // Suspension and termination.
    /// Whether the freezer notifies when a freeze completes (cgroup v2): if so, re-checks stop
    /// once the kernel's notification rate limit has passed.
    let freezerNotifies: Bool
    var freezeDeadline: Instant?
    var freezeRequestedAt: Instant?
    var freezeRecheckAt: Instant?
    var freezeRecheckStep: Duration = .zero
    /// The freeze timeout passed and the freezer was asked once more.
    var freezeTimeoutLookAsked = false
    /// A look at the suspended child for a change from outside goes on at this instant (the
    /// next turn): a command to the child waits for it (``lookGoesOn``).
    var lookAgainAt: Instant?
    /// A thaw of a large sigstop tree goes on at this instant (the next turn), whatever the state:
    /// a command to the child waits for it (``thawGoesOn``).
    var thawAgainAt: Instant?
    var termination: ExitCause?
    var graceEnd: Instant?
    var leftoverGraceEnd: Instant?

    // Launch.
    /// When an aware child (`--aware`) that has not said `hello` since its launch is killed for it.
    var launchDeadline: Instant?
    /// This run is launched to deliver an event.
    var launchedForEvent = false
    /// The events a launch for an event delivers, in order: its own first, with the launch, then
    /// those that arrived while it was launching (up to ``launchQueueLimit``, its own included),
    /// once it has entered the background.
    var launchEvents: [(kind: String, text: String?)] = []
    /// The run before this one was reclaimed: the launch says `reclaimed`.
    var afterReclaim = false
    /// This run is launched for a due scheduled task, whose entry it makes at the launch.
    var launchTask: ScheduledTaskStart?

    // Scheduled tasks.
    /// The scheduled task running in this run (one at a time), until it ends.
    public internal(set) var runningTask: ScheduledTaskRecord?
    /// The scheduled tasks this run ran that have ended, up to ``scheduledTaskRecordLimit``.
    var endedTasks: [ScheduledTaskRecord] = []
    /// The first scheduled task of this run that completed with `failure`.
    public internal(set) var firstFailedTask: TaskID?
    /// Scheduled task runs not kept in ``endedTasks`` because it was full.
    public internal(set) var scheduledTasksNotRecorded = 0
    /// How many ended scheduled task runs one run keeps.
    public static let scheduledTaskRecordLimit = 1_000

    /// The last `memory-warning` sent during the present memory pressure.
    public internal(set) var lastMemoryWarning: MemoryWarning?

    var actions: [LifecycleAction] = []

    /// How many events a launch for an event holds until it is made, its own included.
    public static let launchQueueLimit = 64

    /// Bytes of events waiting unread for the child, as the shell last said (``LifecycleInput/eventsUnread(bytes:)``).
    var unreadEventBytes = 0
    /// Past this many bytes of events waiting unread, `event` commands are refused (and the
    /// shell drops `error` events): what a child that does not read fd 3 makes the supervisor
    /// keep stays bounded, and no lifecycle event is ever dropped.
    public static let unreadEventsLimit = 64 * 1024
    /// Past this many bytes of events waiting unread, the commands that would send the child
    /// lifecycle events — `background` from the foreground, `foreground` from the background,
    /// `run-task` — are refused too: lifecycle events are never dropped, so a child that never
    /// reads fd 3, moved back and forth without end, can't make the supervisor keep them without
    /// bound. Far above ``unreadEventsLimit``, so that the events bound never stops them first.
    public static let unreadLifecycleEventsLimit = 1024 * 1024

    /// A lifecycle under `settings`, begun as `start` says; `freezerNotifies` tells whether the
    /// child's freezer notifies when a freeze completes; it records up to `taskRecordLimit` tasks.
    public init(settings: LifecycleSettings, freezerNotifies: Bool = false, start: RunStart = .configured,
                taskRecordLimit: Int = ChildLifecycle.taskHistoryLimit) {
        self.settings = settings
        self.freezerNotifies = freezerNotifies
        self.taskRecordLimit = taskRecordLimit
        switch start {
        case .configured:
            break
        case .notStarted:
            state = .notRunning
        case .forEvent(let kind, let text, let afterReclaim):
            launchedForEvent = true
            launchEvents = [(kind, text)]
            self.afterReclaim = afterReclaim
        case .forTask(let task, let afterReclaim):
            launchTask = task
            self.afterReclaim = afterReclaim
        }
    }

    /// The finished run as the child's record keeps it: what only deciding needed (the task IDs
    /// it remembered to answer, events held for a launch) is let go.
    var asRecord: ChildLifecycle {
        var run = self
        run.historyIndex = [:]
        run.expireSent = []
        run.refusedIDs = []
        run.openTasks = OpenTasks()
        run.launchEvents = []
        run.actions = []
        return run
    }

    /// Has no process (exited or not running), and nothing of its tree is waited for any longer.
    public var isFinished: Bool { hasNoProcess && leftoverGraceEnd == nil }

    /// Exited or not running: its main process is gone, or never was.
    var hasNoProcess: Bool { state == .exited || state == .notRunning }

    /// The earliest instant at which a `.tick` has something to do, or `nil` when idle.
    public var nextDeadline: Instant? {
        earliest(stateDeadline, thawAgainAt)
    }

    /// The earliest instant at which a timer of the current state falls due.
    private var stateDeadline: Instant? {
        switch state {
        case .background:
            guard !openTasks.isEmpty else { return windowEnd }
            return earliest(earliest(windowEnd, warningSentAt == nil ? warningAt : nil), limitAt)
        case .suspending:
            return earliest(freezeDeadline, freezeRecheckAt)
        case .terminating:
            return graceEnd
        case .exited:
            return leftoverGraceEnd
        case .launching:
            return launchDeadline
        case .suspended:
            return lookAgainAt
        case .active, .notRunning:
            return nil
        }
    }

    /// A look at the suspended child for a change from outside is under way: it goes on at the
    /// next turn (``LifecycleInput/lookUnfinished``).
    public var lookGoesOn: Bool { lookAgainAt != nil }

    /// A thaw is under way: it goes on at the next turn (``LifecycleInput/thawUnfinished``).
    public var thawGoesOn: Bool { thawAgainAt != nil }

    /// Handles one input at `now` and returns what to do.
    public mutating func handle(_ input: LifecycleInput, at now: Instant) -> [LifecycleAction] {
        actions.removeAll(keepingCapacity: true)
        let before = state
        defer { account(leaving: before, at: now) }
        switch input {
        case .launched: launch(now)
        case .request(let request): apply(request, now)
        case .malformed(let error): if !hasNoProcess { send(.error(error)) }
        case .background: moveToBackground(now)
        case .foreground: moveToForeground(now)
        case .event(let kind, let text): resumeForEvent(kind: kind, text: text, now)
        case .terminate(let escalate): terminate(escalate: escalate, now)
        case .freezeVerified: freezeVerified(now)
        case .notFrozenYet: notFrozenYet(now)
        case .freezeUnfinished: freezeUnfinished(now)
        case .lookUnfinished: lookUnfinished(now)
        case .thawUnfinished: thawAgainAt = now
        case .freezerNotified: freezerNotified()
        case .thawedFromOutside(let seen): thawedFromOutside(seen: seen, now)
        case .killedWhileFrozen: killedWhileFrozen()
        case .mainProcessStopped(let signal): mainProcessStopped(by: signal)
        case .mainProcessContinued: mainProcessContinued()
        case .exited(let how, let treeEmpty): exited(how, treeEmpty: treeEmpty, now)
        case .spawnFailed(let status): exited(.exited(status), treeEmpty: true, now)
        case .runOver, .start, .restart: break  // decided across runs, by ChildCore
        case .treeEmptied: leftoverGraceEnd = nil
        case .tick: tick(now)
        case .supervisorGap(let gap): moveDeadlines(by: gap)
        case .reclaim: reclaim()
        case .memoryPressure(let level): memoryPressure(level)
        case .eventsUnread(let bytes): unreadEventBytes = bytes
        case .conditions, .runTask: break  // decided across runs, by ChildCore
        }
        return actions
    }

    /// Adds the time spent in `before` to ``backgroundTime`` if the state changed, and counts
    /// verified freezes, after one input's actions.
    mutating func account(leaving before: ChildState, at now: Instant) {
        freezes += actions.count { if case .frozen = $0 { true } else { false } }
        guard state != before else { return }
        if before.isOutOfForeground, let since = stateEnteredAt, now > since { backgroundTime += now - since }
        stateEnteredAt = now
    }

    // MARK: - Helpers shared by the transitions

    mutating func send(_ event: Event) { actions.append(.send(event)) }

    mutating func setState(_ new: ChildState) {
        guard new != state else { return }
        state = new
        lookAgainAt = nil
        actions.append(.stateChanged(new))
    }

    /// Awareness is settled when the first window ends, however it ends.
    mutating func closeFirstWindow() { firstWindowClosed = true }

    mutating func clearBackgroundTimers() {
        windowEnd = nil
        warningAt = nil
        limitAt = nil
    }

    /// Starts a background entry: new SEQ, window and limit; `did-enter-background` (and `event`).
    mutating func enterBackground(_ now: Instant, event: (kind: String, text: String?)? = nil) {
        announceBackgroundEntry(event: event)
        startBackgroundEntry(now)
    }

    /// The events of a new background entry: a new SEQ, `did-enter-background` (and `event`, or
    /// for an entry made for a scheduled task, `task` with the task's time as the entry's limit).
    mutating func announceBackgroundEntry(event: (kind: String, text: String?)? = nil,
                                          task: ScheduledTaskStart? = nil) {
        seq += 1
        doneForCurrentEntry = false
        let limit = task?.limit ?? settings.limit
        send(.didEnterBackground(seq: seq, windowMS: min(settings.window, limit).wholeMilliseconds,
                                 limitMS: limit.wholeMilliseconds))
        if let event { send(.event(seq: seq, kind: event.kind, text: event.text)) }
        if let task { send(.task(id: task.id, kind: task.kind, limitMS: task.limit.wholeMilliseconds)) }
    }

    /// The timers of the announced entry start now: its window and limit (`limit`, for an entry
    /// made for a scheduled task: the task's time); `background`.
    mutating func startBackgroundEntry(_ now: Instant, limit: Duration? = nil) {
        let limit = limit ?? settings.limit
        let window = min(settings.window, limit)
        if windowEnd != nil { closeFirstWindow() }
        warningSentAt = nil
        limitAt = now + limit
        warningAt = now + limit - settings.expiryWarning
        if window > .zero {
            windowEnd = now + window
            windowPassed = false
        } else {
            windowEnd = nil
            windowPassed = true
            closeFirstWindow()
        }
        setState(.background)
        suspendIfSettled(now)
    }

    /// In the background, suspends once (`done` or the window passed) and no task is open.
    mutating func suspendIfSettled(_ now: Instant) {
        guard state == .background, doneForCurrentEntry || windowPassed, openTasks.isEmpty else { return }
        beginSuspending(now)
    }

    mutating func beginSuspending(_ now: Instant) {
        closeFirstWindow()
        windowEnd = nil
        freezeDeadline = now + settings.freezeTimeout
        freezeRequestedAt = now
        freezeRecheckAt = nil
        freezeRecheckStep = Self.firstFreezeRecheck
        freezeTimeoutLookAsked = false
        setState(.suspending)
        actions.append(.freeze)
    }

    /// Sends `expire` to every open task that has not had one.
    mutating func expireOpenTasks(_ now: Instant) {
        for task in openTasks where !expireSent.contains(task.id) {
            expireSent.insert(task.id)
            if let index = historyIndex[task.id] { taskHistory[index].expire = now }
            if runningTask?.id == task.id { runningTask?.expiredAt = now }
            send(.expire(task.id))
        }
    }
}
