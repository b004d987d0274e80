import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// Every cell of the contract's state × input table, for one run. An `event` to an exited or
/// not-running child launches a new run: those cells are the core's (``NotRunningTests``).
@Suite(.timeLimit(.minutes(5))) struct StateTableTests {
    // MARK: launching

    @Test func whileLaunchingMovesAreRefusedTasksGrantedDoneStaleAndTerminateStartsTheGrace() {
        var h = LifecycleHarness.inState(.launching)
        #expect(h.handle(.background) == [.refuse("cannot move to the background: the child is launching")])
        #expect(h.handle(.foreground) == [.refuse("cannot bring to the foreground: the child is launching")])
        #expect(h.request(.begin(id: id("early"), name: nil)) == [])
        #expect(h.machine.openTasks.map(\.id) == [id("early")])
        #expect(h.request(.done(seq: 1)) == [.send(.error(RequestError(code: .staleDone, request: "done 1")))])
        #expect(h.handle(.terminate(escalate: false)) == [.stateChanged(.terminating), .signalTree(15)],
                "unaware until its first window: the stop signal")
        #expect(h.state == .terminating)
    }

    // MARK: background

    @Test func backgroundFromActiveEntersTheBackground() {
        var h = LifecycleHarness.active()
        h.handle(.background)
        #expect(h.state == .background)
        #expect(h.sent == [.willResignActive, .didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000)])
    }

    @Test(arguments: [ChildState.background, .suspending, .suspended])
    func backgroundIsANoOpInTheBackground(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.background) == [])
        #expect(h.state == state)
    }

    @Test(arguments: [ChildState.terminating, .exited, .notRunning])
    func backgroundIsRefusedWhenStopping(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        let actions = h.handle(.background)
        #expect(actions.refusals.count == 1)
        #expect(actions.count == 1)
        #expect(h.state == state)
    }

    // MARK: foreground

    @Test func foregroundIsANoOpWhenActive() {
        var h = LifecycleHarness.active()
        #expect(h.handle(.foreground) == [])
    }

    @Test func foregroundFromBackgroundStopsTimersAndKeepsTasks() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t1"), name: "upload"))
        h.take()
        h.handle(.foreground)
        #expect(h.take() == [.send(.willEnterForeground), .send(.didBecomeActive), .stateChanged(.active)])
        #expect(h.machine.openTasks.map(\.id) == [id("t1")])
        #expect(h.machine.nextDeadline == nil)
        h.advance(to: 100)
        #expect(h.take() == [])
        #expect(h.state == .active)
    }

    @Test(arguments: [ChildState.suspending, .suspended])
    func foregroundThawsThenActivates(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.foreground) == [.thaw, .send(.willEnterForeground), .send(.didBecomeActive), .stateChanged(.active)])
        #expect(h.machine.nextDeadline == nil)
    }

    @Test(arguments: [ChildState.terminating, .exited, .notRunning])
    func foregroundIsRefusedWhenStopping(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        let actions = h.handle(.foreground)
        #expect(actions.refusals.count == 1 && actions.count == 1)
        #expect(h.state == state)
    }

    // MARK: event

    @Test func eventIsRefusedInTheForeground() {
        var h = LifecycleHarness.active()
        let actions = h.handle(.event(kind: "push", text: nil))
        #expect(actions.refusals == ["cannot deliver event 'push': the child is in the foreground"])
        #expect(h.state == .active)
    }

    @Test func eventInTheBackgroundStartsANewEntry() {
        var h = LifecycleHarness.background()
        h.advance(by: 2)
        h.handle(.event(kind: "push", text: "new mail"))
        #expect(h.sent == [.didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000),
                           .event(seq: 2, kind: "push", text: "new mail")])
        #expect(h.machine.nextDeadline == Instant(nanoseconds: 7_000_000_000))
    }

    @Test(arguments: [ChildState.suspending, .suspended])
    func eventThawsThenResumesInTheBackground(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        let actions = h.handle(.event(kind: "fetch", text: nil))
        #expect(actions == [.thaw, .send(.didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000)),
                            .send(.event(seq: 2, kind: "fetch", text: nil)), .stateChanged(.background)])
    }

    @Test(arguments: [ChildState.terminating, .exited])
    func eventIsRefusedWhenStopping(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        let actions = h.handle(.event(kind: "push", text: nil))
        #expect(actions.refusals.count == 1 && actions.count == 1)
    }

    // MARK: terminate

    @Test(arguments: [ChildState.active, .background])
    func terminateStartsTheGrace(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.terminate(escalate: false)) == [.stateChanged(.terminating), .send(.willTerminate(graceMS: 5000))])
        #expect(h.machine.nextDeadline == h.now + .seconds(5))
    }

    @Test(arguments: [ChildState.suspending, .suspended])
    func terminateThawsFirst(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.terminate(escalate: false)) == [.thaw, .stateChanged(.terminating), .send(.willTerminate(graceMS: 5000))])
    }

    @Test func terminateWhileTerminatingIsANoOpButASecondSignalKills() {
        var h = LifecycleHarness.terminating()
        #expect(h.handle(.terminate(escalate: false)) == [])
        #expect(h.handle(.terminate(escalate: true)) == [.killTree])
        #expect(h.machine.nextDeadline == nil)
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.machine.exit?.by == .kill)
        #expect(h.machine.exit?.inTime == false)
        #expect(h.machine.exit?.countedStatus == 137)
    }

    @Test(arguments: [ChildState.exited, .notRunning])
    func terminateWithoutAProcessIsANoOp(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.terminate(escalate: true)) == [])
        #expect(h.state == state)
    }

    // MARK: begin

    @Test func beginIsGrantedInTheForeground() {
        var h = LifecycleHarness.active()
        #expect(h.request(.begin(id: id("a"), name: "sync")) == [])
        #expect(Array(h.machine.openTasks) == [TaskReference(id: id("a"), name: "sync")])
    }

    @Test func beginIsGrantedInTheBackgroundUntilLimitMinusWarning() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("keep"), name: nil))
        h.advance(by: 24.999)
        #expect(h.request(.begin(id: id("a"), name: nil)) == [])
        h.advance(by: 0.001)
        h.take()
        #expect(h.request(.begin(id: id("b"), name: nil)) == [.send(.expire(id("b")))])
        #expect(h.machine.openTasks.map(\.id) == [id("keep"), id("a")])
    }

    @Test(arguments: [ChildState.suspending, .suspended, .terminating])
    func beginIsAnsweredWithExpire(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.request(.begin(id: id("late"), name: nil)) == [.send(.expire(id("late")))])
        #expect(h.machine.openTasks.isEmpty)
        #expect(h.machine.taskHistory.last?.refused == true)
        // The `end` that follows a refusal is accepted silently.
        #expect(h.request(.end(id: id("late"))) == [])
    }

    @Test(arguments: [ChildState.exited, .notRunning])
    func requestsWithoutAProcessAreIgnored(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.request(.begin(id: id("x"), name: nil)) == [])
        #expect(h.request(.done(seq: 1)) == [])
        #expect(h.handle(.malformed(RequestError(code: .badID, request: "begin"))) == [])
    }

    // MARK: reclaim

    @Test func reclaimKillsASuspendedChildWithoutNoticeAndThawsItsFreezer() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.reclaim) == [.stateChanged(.terminating), .killTree, .thaw])
        #expect(h.machine.nextDeadline == nil)
        h.handle(.exited(.signaled(9), treeEmpty: false))
        #expect(h.state == .notRunning && h.machine.isFinished)
        #expect(h.take().last == .killTree, "what it left behind is killed too")
        #expect(h.machine.exit?.by == .reclaim && h.machine.exit?.countedStatus == 0 && h.machine.exit?.inTime == nil)
    }

    @Test(arguments: [ChildState.launching, .active, .background, .suspending, .terminating, .exited, .notRunning])
    func reclaimTakesOnlyASuspendedChild(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.reclaim) == [])
        #expect(h.state == state)
    }

    // MARK: done

    @Test func doneInTheForegroundIsStale() {
        var h = LifecycleHarness.active()
        #expect(h.request(.done(seq: 1)) == [.send(.error(RequestError(code: .staleDone, request: "done 1")))])
    }

    @Test func doneCountsOnlyForTheCurrentSequence() {
        var h = LifecycleHarness.background()
        #expect(h.request(.done(seq: 7)) == [.send(.error(RequestError(code: .staleDone, request: "done 7")))])
        #expect(h.state == .background)
        #expect(h.request(.done(seq: 1)) == [.stateChanged(.suspending), .freeze])
    }

    @Test(arguments: [ChildState.suspending, .suspended, .terminating])
    func doneIsIgnored(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.request(.done(seq: 1)) == [])
        #expect(h.request(.done(seq: 99)) == [])
    }
}
