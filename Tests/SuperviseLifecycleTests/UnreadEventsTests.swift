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
    /// are never refused for it.
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
}
