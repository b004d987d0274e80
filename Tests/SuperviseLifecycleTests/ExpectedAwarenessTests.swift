import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// A child expected to speak the protocol (`--aware`): `launching` until its `hello`, killed for
/// a launch violation without one, and every input of the contract's `launching` column while it
/// waits; on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct ExpectedAwarenessTests {
    private static let entry1 = Event.didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000)

    /// Launched with `--aware` (and `configure`), no `hello` read yet.
    private static func waitingForHello(_ configure: (inout LifecycleSettings) -> Void = { _ in }) -> LifecycleHarness {
        var h = LifecycleHarness { settings in
            settings.aware = true
            configure(&settings)
        }
        h.handle(.launched)
        return h
    }

    @Test func theLaunchEventsGoOutAtOnceButTheChildIsLaunchingUntilItsHello() {
        var h = Self.waitingForHello()
        #expect(h.take() == [.send(.didFinishLaunching(.foreground)), .send(.didBecomeActive)])
        #expect(h.state == .launching)
        #expect(h.machine.nextDeadline == .zero + .seconds(20), "the launch timeout counts from the launch")
        h.advance(to: 19)
        #expect(h.request(.hello) == [.stateChanged(.active)])
        #expect(h.machine.aware && h.machine.nextDeadline == nil)
        h.advance(to: 60)
        #expect(h.state == .active && h.machine.violations.isEmpty)
    }

    @Test func noHelloWithinTheLaunchTimeoutIsALaunchViolationThatKillsTheTree() {
        var h = Self.waitingForHello { $0.launchTimeout = .seconds(3) }
        h.request(.begin(id: id("early"), name: "warm cache"))
        h.take()
        h.advance(to: 2.999)
        #expect(h.take() == [], "nothing before the timeout")
        h.advance(to: 3)
        let violation = Violation(kind: .launch, at: .zero + .seconds(3), action: .killed,
                                  tasks: [TaskReference(id: id("early"), name: "warm cache")])
        #expect(h.take() == [.stateChanged(.terminating), .violation(violation), .killTree])
        #expect(h.machine.nextDeadline == nil)
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.machine.exit?.by == .violation && h.machine.violations == [violation])
        #expect(h.request(.hello) == [], "a hello after the kill changes nothing")
    }

    @Test func aLateHelloIsNeverDemotedToUnaware() {
        // Without --aware, a hello after the first window leaves the child unaware; with it, the
        // window does not start before the hello, so the hello is always in time.
        var h = Self.waitingForHello { $0.launch = .background; $0.window = .seconds(1) }
        #expect(h.take() == [.send(.didFinishLaunching(.background)), .send(Self.firstEntry(window: 1000))])
        h.advance(to: 10)
        #expect(h.state == .launching && h.take() == [], "no window runs before the hello")
        h.request(.hello)
        #expect(h.state == .background && h.machine.aware)
        #expect(h.machine.nextDeadline == .zero + .seconds(11), "the window starts at the hello")
        h.advance(to: 11)
        #expect(h.take().contains(.violation(Violation(kind: .window, at: .zero + .seconds(11), action: .killed,
                                                       tasks: []))),
                "aware: a missed window is a violation, not a quiet suspension")
    }

    @Test func aBackgroundLaunchStartsItsWindowAndLimitAtTheHello() {
        var h = Self.waitingForHello { $0.launch = .background }
        h.take()
        h.advance(to: 4)
        h.request(.hello)
        #expect(h.take() == [.stateChanged(.background)], "the entry's events went out with the launch")
        #expect(h.machine.nextDeadline == .zero + .seconds(9), "window: 5 s from the hello")
        #expect(h.request(.done(seq: 1)) == [.stateChanged(.suspending), .freeze])
    }

    @Test func aHelloBeforeTheLaunchIsHandledFinishesTheLaunchAtOnce() {
        var h = LifecycleHarness { $0.aware = true }
        h.request(.hello)
        h.handle(.launched)
        #expect(h.take() == [.send(.didFinishLaunching(.foreground)), .send(.didBecomeActive), .stateChanged(.active)])
        #expect(h.machine.nextDeadline == nil)
    }

    @Test func withoutAwareNothingChanges() {
        var h = LifecycleHarness()
        h.handle(.launched)
        #expect(h.state == .active && h.machine.nextDeadline == nil, "an unaware launch is momentary")
    }

    // MARK: The launching column, waiting for hello

    @Test func movesAreRefusedUntilTheHello() {
        var h = Self.waitingForHello()
        h.take()
        #expect(h.handle(.background) == [.refuse("cannot move to the background: the child is launching (no hello yet)")])
        #expect(h.handle(.foreground) == [.refuse("cannot bring to the foreground: the child is launching (no hello yet)")])
        #expect(h.handle(.event(kind: "push", text: nil))
            == [.refuse("cannot deliver event 'push': the child is launching (no hello yet)")])
        #expect(h.state == .launching && h.machine.nextDeadline == .zero + .seconds(20))
    }

    @Test func tasksAreGrantedDoneIsStaleAndASecondHelloIsRefused() {
        var h = Self.waitingForHello { $0.launch = .background }
        h.take()
        #expect(h.request(.begin(id: id("t1"), name: nil)) == [])
        #expect(h.request(.done(seq: 1)) == [.send(.error(RequestError(code: .staleDone, request: "done 1")))])
        h.request(.hello)
        #expect(h.request(.hello) == [.send(.error(RequestError(code: .badVersion, request: "hello 1")))])
        h.take()
        h.advance(to: 5)
        #expect(h.state == .background && h.take() == [], "a task open at the window's end: no violation")
    }

    @Test func terminateTellsTheChildAndStopsTheLaunchTimeout() {
        var h = Self.waitingForHello { $0.launchTimeout = .seconds(2) }
        h.request(.begin(id: id("t1"), name: nil))
        h.take()
        #expect(h.handle(.terminate(escalate: false))
            == [.stateChanged(.terminating), .send(.willTerminate(graceMS: 5000)), .send(.expire(id("t1")))],
            "expected to be aware: told, the pipe holds it until the child reads")
        #expect(h.machine.nextDeadline == .zero + .seconds(5), "the grace, not the launch timeout")
        h.take()
        h.advance(to: 5)
        #expect(h.take() == [.killTree] && h.machine.violations.isEmpty)
        h.request(.hello)
        #expect(h.machine.aware, "a hello during the grace still makes it aware")
    }

    @Test func exitingBeforeTheHelloEndsTheLaunchTimeout() {
        var h = Self.waitingForHello()
        h.handle(.exited(.exited(3), treeEmpty: true))
        #expect(h.state == .exited && h.machine.nextDeadline == nil)
        #expect(h.machine.exit?.countedStatus == 3 && h.machine.violations.isEmpty)
    }

    @Test func reclaimAndFreezerInputsDoNothing() {
        for input in [LifecycleInput.reclaim, .freezerNotified, .freezeVerified, .notFrozenYet, .freezeUnfinished, .lookUnfinished,
                      .thawedFromOutside(seen: "x"), .killedWhileFrozen] {
            var h = Self.waitingForHello()
            h.take()
            #expect(h.handle(input) == [], "\(input)")
            #expect(h.state == .launching)
        }
    }

    // MARK: Launch for an event

    @Test func eventsWaitBehindALaunchForAnEventUntilTheHello() {
        var h = LifecycleHarness(start: .forEvent(kind: "push", text: nil, afterReclaim: false)) { $0.aware = true }
        h.handle(.event(kind: "second", text: "b"))
        h.handle(.launched)
        #expect(h.take() == [.note("launched for event push"), .send(.didFinishLaunching(.background)),
                             .send(Self.entry1), .send(.event(seq: 1, kind: "push", text: nil))])
        #expect(h.handle(.event(kind: "third", text: nil)) == [], "queued until the hello")
        h.advance(to: 2)
        h.request(.hello)
        let entry2 = Event.didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000)
        let entry3 = Event.didEnterBackground(seq: 3, windowMS: 5000, limitMS: 30000)
        #expect(h.take() == [.stateChanged(.background), .send(entry2), .send(.event(seq: 2, kind: "second", text: "b")),
                             .send(entry3), .send(.event(seq: 3, kind: "third", text: nil))])
    }

    @Test func theLaunchQueueHoldsAtMost64EventsTheLaunchsOwnIncluded() {
        var h = LifecycleHarness(start: .forEvent(kind: "e0", text: nil, afterReclaim: false)) { $0.aware = true }
        h.handle(.launched)
        for index in 1..<ChildLifecycle.launchQueueLimit { h.handle(.event(kind: "e\(index)", text: nil)) }
        #expect(h.take().refusals.isEmpty)
        #expect(h.handle(.event(kind: "late", text: nil)).refusals.count == 1)
    }

    // MARK: Across runs

    @Test func aServiceIsReadyOnlyOnceTheAwareChildHasSaidHello() {
        var settings = LifecycleSettings()
        settings.aware = true
        var core = ChildCore(settings: settings, restart: RestartRules(), freezerNotifies: false)
        var notifier = ServiceNotifier()
        func child(_ status: ChildStatus) -> ServiceNotifier.Child {
            ServiceNotifier.Child(name: "w", status: status, grace: .seconds(5), mayRunAgain: false)
        }
        let launched = core.handle(.launched, at: .zero).status
        #expect(notifier.message(for: [child(launched)]) == "STATUS=w: launching")
        let greeted = core.handle(.request(.hello), at: .zero + .seconds(1)).status
        #expect(notifier.message(for: [child(greeted)]) == "READY=1\nSTATUS=w: active")
    }

    @Test func aLaunchViolationIsRestartedOnlyAsAWindowViolationIs() {
        var settings = LifecycleSettings()
        settings.aware = true
        settings.launchTimeout = .seconds(1)
        for afterViolation in [false, true] {
            var core = ChildCore(settings: settings, restart: RestartRules(policy: .onFailure, afterViolation: afterViolation),
                                 freezerNotifies: false)
            var now = Instant.zero
            _ = core.handle(.launched, at: now)
            now = now + .seconds(1)
            _ = core.handle(.tick, at: now)
            _ = core.handle(.exited(.signaled(9), treeEmpty: true), at: now)
            #expect(core.handle(.runOver, at: now).status.restartPending == afterViolation)
        }
    }
}

extension ExpectedAwarenessTests {
    private static func firstEntry(window: Int64) -> Event {
        .didEnterBackground(seq: 1, windowMS: window, limitMS: 30000)
    }
}
