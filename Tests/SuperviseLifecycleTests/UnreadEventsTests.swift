import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// `event` is refused while more than ``ChildLifecycle/unreadEventsLimit`` bytes of events wait
/// unread, so that a child that never reads fd 3 can't make the supervisor keep events without
/// bound; lifecycle events are never dropped, and events flow again once the child has read.
@Suite(.timeLimit(.minutes(5))) struct UnreadEventsTests {
    static let refusal = LifecycleAction.refuse("cannot deliver event 'push': over 64 KiB of events wait unread "
        + "(the child is not reading fd 3)")

    @Test(arguments: [ChildState.background, .suspending, .suspended])
    func anEventIsRefusedOverTheBoundAndDeliveredOnceTheChildHasRead(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadEventsLimit + 1))
        #expect(h.take().isEmpty, "being told the backlog decides nothing")
        #expect(h.handle(.event(kind: "push", text: nil)) == [Self.refusal])
        #expect(h.state == state, "nothing thawed, no new background entry")
        #expect(h.machine.nextDeadline == LifecycleHarness.inState(state).machine.nextDeadline, "no timer moved")

        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadEventsLimit))
        h.take()
        h.handle(.event(kind: "push", text: nil))
        #expect(h.sent.contains(.event(seq: 2, kind: "push", text: nil)), "\(h.log)")
        #expect(h.state == .background)
    }

    /// The bound is about events that wait: other commands, whose events are lifecycle events,
    /// are not refused for it (only over the far larger lifecycle bound).
    @Test func lifecycleCommandsAreNotRefusedOverTheBound() {
        var h = LifecycleHarness.background()
        h.handle(.eventsUnread(bytes: 10 * ChildLifecycle.unreadEventsLimit))
        h.handle(.foreground)
        #expect(h.state == .active && !h.log.contains { if case .refuse = $0 { true } else { false } })
        h.handle(.terminate(escalate: false))
        #expect(h.sent.last == .willTerminate(graceMS: 5000), "\(h.log)")
    }

    /// A new run has a new events pipe: what the last one left unread does not refuse its events.
    @Test func aNewRunStartsWithNothingUnread() {
        var core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false)
        let now = Instant.zero
        _ = core.handle(.launched, at: now)
        _ = core.handle(.request(.hello), at: now)
        _ = core.handle(.background, at: now)
        _ = core.handle(.eventsUnread(bytes: 2 * ChildLifecycle.unreadEventsLimit), at: now)
        #expect(core.handle(.event(kind: "push", text: nil), at: now).actions == [Self.refusal])
        _ = core.handle(.exited(.exited(0), treeEmpty: true), at: now)
        _ = core.handle(.runOver, at: now)
        let launch = core.handle(.event(kind: "push", text: nil), at: now)
        #expect(launch.actions.contains(.startRun), "\(launch.actions)")
        _ = core.handle(.launched, at: now)
        let again = core.handle(.event(kind: "again", text: nil), at: now)
        #expect(again.actions.contains(.send(.event(seq: 2, kind: "again", text: nil))), "\(again.actions)")
    }

    /// Over ``ChildLifecycle/unreadLifecycleEventsLimit``, a command that would send lifecycle
    /// events is refused, one line, and changes nothing: moved back and forth without end, a
    /// child that never reads fd 3 queued them without bound. Under it, the same command runs.
    @Test(arguments: [(ChildState.active, LifecycleInput.background, "cannot move to the background"),
                      (.background, .foreground, "cannot bring to the foreground"),
                      (.suspending, .foreground, "cannot bring to the foreground"),
                      (.suspended, .foreground, "cannot bring to the foreground")])
    func aLifecycleCommandIsRefusedOverTheLifecycleBound(state: ChildState, command: LifecycleInput, what: String) {
        var h = LifecycleHarness.inState(state)
        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadLifecycleEventsLimit + 1))
        #expect(h.handle(command) == [Self.lifecycleRefusal(what)])
        #expect(h.state == state, "nothing sent, thawed or moved")
        #expect(h.machine.nextDeadline == LifecycleHarness.inState(state).machine.nextDeadline, "no timer moved")

        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadLifecycleEventsLimit))
        h.take()
        h.handle(command)
        #expect(!h.sent.isEmpty && h.state != state, "\(h.log)")
    }

    /// What sends nothing, and what must always get through, is never refused: `background` of a
    /// child already there, `foreground` of an active one, `terminate` (one event, and the run ends).
    @Test func commandsThatSendNothingAndTerminateAreNotRefused() {
        var h = LifecycleHarness.background()
        h.handle(.eventsUnread(bytes: 10 * ChildLifecycle.unreadLifecycleEventsLimit))
        #expect(h.handle(.background).isEmpty)
        var active = LifecycleHarness.active()
        active.handle(.eventsUnread(bytes: 10 * ChildLifecycle.unreadLifecycleEventsLimit))
        #expect(active.handle(.foreground).isEmpty)
        h.handle(.terminate(escalate: false))
        #expect(h.sent.last == .willTerminate(graceMS: 5000), "\(h.log)")
    }

    /// `run-task` would give the child a background entry: refused over the bound, the task left
    /// pending and due when it was; a due task does not slip past a refused `background` either.
    @Test func runTaskIsRefusedOverTheLifecycleBound() {
        var h = ScheduleHarness.suspended()
        h.request(ScheduleHarness.schedule("t", earliest: 3600))
        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadLifecycleEventsLimit + 1))
        #expect(h.handle(.runTask(id("t"))) == [Self.lifecycleRefusal("cannot run task t")])
        #expect(h.core.work.pending[id("t")]?.dueAt == Instant.zero + .seconds(3600), "still pending, due as it was")
        #expect(h.state == .suspended)

        var active = ScheduleHarness()
        active.handle(.launched)
        active.request(.hello)
        active.request(ScheduleHarness.schedule("t"))
        active.handle(.eventsUnread(bytes: ChildLifecycle.unreadLifecycleEventsLimit + 1))
        #expect(active.handle(.background) == [Self.lifecycleRefusal("cannot move to the background")])
        #expect(active.state == .active && active.core.work.pending[id("t")] != nil, "the task waits for the next entry")
    }

    /// A child that is not reading fd 3 is not warned of memory pressure: the warnings of
    /// pressure coming and going for days would pile up for it. Once it has read, it is warned
    /// at the next harder level, as if the held-back warning had never been due.
    @Test(arguments: [ChildState.active, .background])
    func aMemoryWarningIsHeldBackOverTheBound(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadEventsLimit + 1))
        h.take()
        #expect(h.handle(.memoryPressure(.moderate)) == [], "over the bound: no warning")

        h.handle(.eventsUnread(bytes: ChildLifecycle.unreadEventsLimit))
        let warning = ChildLifecycle.memoryWarning(for: .critical, in: state)
        #expect(warning != nil && h.handle(.memoryPressure(.critical)) == [.send(.memoryWarning(warning!))], "\(h.log)")
    }

    static func lifecycleRefusal(_ what: String) -> LifecycleAction {
        .refuse("\(what): over 1 MiB of events wait unread (the child is not reading fd 3)")
    }
}
