import SuperviseProtocol

/// Something that happened to one child. Every input is handled at an `Instant`.
public enum LifecycleInput: Equatable, Sendable {
    /// The child was spawned: send the launch events.
    case launched
    /// A well-formed request read from the child.
    case request(Request)
    /// A line the codec refused; the child gets `error CODE REQUEST`.
    case malformed(RequestError)
    /// Control commands (stdin or signals).
    case background
    case foreground
    case event(kind: String, text: String?)
    /// Terminate gracefully; `escalate` (a second SIGTERM/SIGINT) kills at once when already terminating.
    case terminate(escalate: Bool)
    /// The user's `start`: launch a child that has exited or is not running, whatever its restart rules.
    case start
    /// The user's `restart`: terminate gracefully, then start (at once for a child without a process).
    case restart
    /// The freezer confirmed every process of the child is frozen.
    case freezeVerified
    /// The freezer was asked, and some process of the child is not frozen yet.
    case notFrozenYet
    /// The freezer did this turn's share of a check and goes on at the next turn of the loop
    /// (sigstop, a large tree): no verdict yet.
    case freezeUnfinished
    /// The freezer did this turn's share of a look at the suspended child for a change from
    /// outside, and goes on at the next turn (sigstop, a large tree): nothing found yet.
    case lookUnfinished
    /// The freezer did this turn's share of a thaw and goes on at the next turn (sigstop, a
    /// large tree): commands to the child wait until it ends.
    case thawUnfinished
    /// The freezer's notification descriptor fired: look again at whatever waits on the freezer.
    case freezerNotified
    /// Someone else thawed the suspended child; `seen` says how the shell saw it.
    case thawedFromOutside(seen: String)
    /// The suspended child's main process has a SIGKILL pending that its freeze holds back
    /// (cgroup v1): someone else killed it, and it can die only once thawed.
    case killedWhileFrozen
    /// The child's main process was stopped by `signal` (the kernel's WUNTRACED report).
    case mainProcessStopped(signal: Int32)
    /// The child's main process was continued (the kernel's WCONTINUED report).
    case mainProcessContinued
    /// The child's main process was reaped. `treeEmpty` tells whether descendants are left.
    case exited(ChildTermination, treeEmpty: Bool)
    /// The child could not be started: it exited with `status` (127 or 126 when the command can't
    /// be run, 125 when the supervisor could not start it), and is never restarted.
    case spawnFailed(status: Int32)
    /// The shell wrapped up the finished run (pipes closed, output flushed): decide on a restart.
    case runOver
    /// The descendants left behind by an exited child are gone.
    case treeEmptied
    /// Time has passed: act on whatever timer is due.
    case tick
    /// The supervisor was not running for this long (``SupervisorGap``): move every deadline
    /// that judges the child by it, before anything read or due after the gap is decided.
    case supervisorGap(Duration)
    /// Kill the suspended child to take back its memory, without notice (`--suspended-memory`).
    case reclaim
    /// Memory pressure is now at this level (``MemoryPressure``): warn the child if it runs.
    case memoryPressure(MemoryPressure.Level)
    /// How many bytes of events wait unread for the child beyond what its events pipe holds
    /// (its backlog), told before each command and each memory pressure
    /// (``readsUnreadEvents``): over ``ChildLifecycle/unreadEventsLimit`` an `event` is refused
    /// and a memory warning held back, over ``ChildLifecycle/unreadLifecycleEventsLimit`` every
    /// command that would send lifecycle events, since those are never dropped.
    case eventsUnread(bytes: Int)
    /// The conditions of scheduled tasks that hold now (``ScheduleCondition``), told whenever
    /// they change: a due task runs only while all it requires hold.
    case conditions(Set<ScheduleCondition>)
    /// The user's `run-task`: run the pending scheduled task now, whatever its due time and
    /// conditions (as Xcode's `_simulateLaunchForTaskWithIdentifier`).
    case runTask(TaskID)

    /// A control command (stdin or a signal), as opposed to what the child or the kernel did.
    public var isCommand: Bool {
        switch self {
        case .background, .foreground, .event, .terminate, .start, .restart, .runTask: true
        case .launched, .request, .malformed, .freezeVerified, .notFrozenYet, .freezeUnfinished, .lookUnfinished,
             .thawUnfinished, .freezerNotified, .thawedFromOutside, .killedWhileFrozen, .mainProcessStopped, .mainProcessContinued, .exited,
             .spawnFailed, .runOver, .treeEmptied, .tick, .supervisorGap, .reclaim, .memoryPressure, .eventsUnread, .conditions: false
        }
    }

    /// Whether the core's answer depends on the events waiting unread, which it is told first.
    public var readsUnreadEvents: Bool {
        if case .memoryPressure = self { return true }
        return isCommand
    }
}
