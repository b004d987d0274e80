import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The contract's timing rules, each on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct TimingRuleTests {
    @Test func launchInTheForeground() {
        var h = LifecycleHarness()
        #expect(h.handle(.launched) == [.send(.didFinishLaunching(.foreground)), .send(.didBecomeActive), .stateChanged(.active)])
    }

    @Test func launchInTheBackgroundHasNoResignEvent() {
        var h = LifecycleHarness { $0.launch = .background }
        #expect(h.handle(.launched) == [.send(.didFinishLaunching(.background)),
                                         .send(.didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000)),
                                         .stateChanged(.background)])
    }

    @Test func unawareChildIsSuspendedWhenTheWindowPasses() {
        var h = LifecycleHarness.background(aware: false)
        h.advance(to: 4.999)
        #expect(h.state == .background)
        h.advance(to: 5)
        #expect(h.state == .suspending)
        #expect(h.machine.violations.isEmpty)
        h.handle(.freezeVerified)
        #expect(h.state == .suspended)
    }

    @Test func doneSuspendsAtOnce() {
        var h = LifecycleHarness.background()
        h.advance(by: 0.2)
        #expect(h.request(.done(seq: 1)) == [.stateChanged(.suspending), .freeze])
    }

    @Test func awareChildMissingItsWindowIsKilled() {
        var h = LifecycleHarness.background()
        h.advance(to: 5)
        #expect(h.take() == [.stateChanged(.terminating),
                             .violation(Violation(kind: .window, at: h.now, action: .killed, tasks: [])),
                             .killTree])
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.machine.exit?.by == .violation)
        #expect(h.machine.exit?.inTime == nil)
    }

    @Test func windowOverrunCanSuspendInstead() {
        var h = LifecycleHarness.background { $0.onWindowOverrun = .suspend }
        h.advance(to: 5)
        #expect(h.take() == [.violation(Violation(kind: .window, at: h.now, action: .suspended, tasks: [])),
                             .stateChanged(.suspending), .freeze])
    }

    @Test func windowIsJudgedOnlyAtItsEnd() {
        // A task ended before the window passed: no suspension yet, and a violation at the end.
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 1)
        #expect(h.request(.end(id: id("t"))) == [])
        #expect(h.state == .background)
        h.advance(to: 5)
        #expect(h.machine.violations.map(\.kind) == [.window])
    }

    @Test func openTaskAtWindowEndIsNoViolation() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: "upload"))
        h.advance(to: 10)
        #expect(h.state == .background)
        #expect(h.machine.violations.isEmpty)
        #expect(h.request(.end(id: id("t"))) == [.stateChanged(.suspending), .freeze])
    }

    @Test func taskBegunInTheForegroundCarriesIntoTheBackground() {
        var h = LifecycleHarness.active()
        h.request(.begin(id: id("t"), name: nil))
        h.handle(.background)
        h.request(.done(seq: 1))
        #expect(h.state == .background)
        h.take()
        h.request(.end(id: id("t")))
        #expect(h.take() == [.stateChanged(.suspending), .freeze])
    }

    @Test func openTasksGetExpireAtLimitMinusWarningThenTheChildIsKilled() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t1"), name: "upload"))
        h.request(.begin(id: id("t2"), name: nil))
        h.request(.done(seq: 1))
        h.advance(to: 24.999)
        #expect(h.sent.isEmpty)
        h.advance(to: 25)
        #expect(h.take() == [.send(.expire(id("t1"))), .send(.expire(id("t2")))])
        h.request(.end(id: id("t2")))
        h.advance(to: 29.999)
        #expect(h.take() == [])
        h.advance(to: 30)
        let violation = Violation(kind: .expiry, at: h.now, action: .killed,
                                  tasks: [TaskReference(id: id("t1"), name: "upload")])
        #expect(h.take() == [.stateChanged(.terminating), .violation(violation), .killTree])
        #expect(h.machine.taskHistory.first?.expire == Instant(nanoseconds: 25_000_000_000))
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.machine.exit?.countedStatus == 137)
    }

    @Test func expireIsSentOncePerTask() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 26)
        h.take()
        h.handle(.terminate(escalate: false))
        #expect(h.sent == [.willTerminate(graceMS: 5000)])
    }

    @Test func foregroundBeforeSuspensionThenBackgroundAgainStartsSequenceTwo() {
        var h = LifecycleHarness.background()
        h.advance(to: 1)
        h.handle(.foreground)
        h.advance(to: 50)
        #expect(h.state == .active)
        h.take()
        h.handle(.background)
        #expect(h.sent.last == .didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000))
    }

    @Test func zeroWindowSuspendsAtOnceUnlessTasksAreOpen() {
        var h = LifecycleHarness.active { $0.window = .zero }
        #expect(h.handle(.background) == [.send(.willResignActive),
                                           .send(.didEnterBackground(seq: 1, windowMS: 0, limitMS: 30000)),
                                           .stateChanged(.background), .stateChanged(.suspending), .freeze])
        var busy = LifecycleHarness.active { $0.window = .zero }
        busy.request(.begin(id: id("t"), name: nil))
        busy.handle(.background)
        #expect(busy.state == .background)
        busy.advance(to: 30)
        #expect(busy.machine.violations.map(\.kind) == [.expiry])
    }

    @Test func freezeThatIsNotVerifiedInTimeIsUndone() {
        var h = LifecycleHarness.suspending { $0.freezeTimeout = .milliseconds(500) }
        h.advance(by: 0.499)
        #expect(h.state == .suspending)
        h.advance(by: 0.001)
        #expect(h.take() == [.checkFrozen, .thaw, .freezeFailed("freeze-failed: not verified frozen within 0.5s; thawed"),
                             .stateChanged(.background)], "the kernel is asked at the timeout; no answer is no")
        #expect(h.machine.nextDeadline == nil)
        // A late verification changes nothing; the next transition tries again.
        #expect(h.handle(.freezeVerified) == [])
        h.handle(.event(kind: "retry", text: nil))
        h.request(.done(seq: 2))
        #expect(h.state == .suspending)
    }

    @Test func freezeFailedChildHoldingTasksIsStillKilledAtTheLimit() {
        var h = LifecycleHarness.suspending()
        h.advance(by: 1)
        #expect(h.state == .background)
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 30)
        #expect(h.machine.violations.map(\.kind) == [.expiry])
    }

    @Test func awareChildGetsWillTerminateAndItsTasksExpire() {
        var h = LifecycleHarness.active { $0.grace = .seconds(2) }
        h.request(.begin(id: id("t"), name: nil))
        #expect(h.handle(.terminate(escalate: false)) == [.stateChanged(.terminating),
                                                           .send(.willTerminate(graceMS: 2000)),
                                                           .send(.expire(id("t")))])
        h.advance(by: 1)
        h.handle(.exited(.exited(0), treeEmpty: true))
        #expect(h.machine.exit == ExitRecord(termination: .exited(0), by: .terminate, inTime: true,
                                             at: h.now, countedStatus: 0))
    }

    @Test func unawareChildGetsTheStopSignalThenSIGKILLAfterTheGrace() {
        var h = LifecycleHarness.active(aware: false)
        #expect(h.handle(.terminate(escalate: false)) == [.stateChanged(.terminating), .signalTree(15)])
        h.advance(by: 4.999)
        #expect(h.take() == [.stateChanged(.terminating), .signalTree(15)])
        h.advance(by: 0.001)
        #expect(h.take() == [.killTree])
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.machine.exit?.by == .kill)
        #expect(h.machine.exit?.inTime == false)
        #expect(h.machine.exit?.countedStatus == 137)
    }

    @Test func childKilledByTheStopSignalWithinTheGraceCountsAsZero() {
        var h = LifecycleHarness.active(aware: false)
        h.handle(.terminate(escalate: false))
        h.handle(.exited(.signaled(15), treeEmpty: true))
        #expect(h.machine.exit?.countedStatus == 0)
        #expect(h.machine.exit?.termination.shellStatus == 143)
    }

    @Test func childExitingWith128PlusTheStopSignalWithinTheGraceCountsAsZero() {
        // A JVM runs its shutdown hooks on SIGTERM and exits with 143, as `trap 'exit 143' TERM` does.
        var h = LifecycleHarness.active(aware: false)
        h.handle(.terminate(escalate: false))
        h.handle(.exited(.exited(143), treeEmpty: true))
        #expect(h.machine.exit == ExitRecord(termination: .exited(143), by: .terminate, inTime: true,
                                             at: h.now, countedStatus: 0))
    }

    @Test func theCleanCodeFollowsTheStopSignal() {
        var interrupted = LifecycleHarness.active(aware: false) { $0.stopSignal = 2 }
        interrupted.handle(.terminate(escalate: false))
        interrupted.handle(.exited(.exited(130), treeEmpty: true))
        #expect(interrupted.machine.exit?.countedStatus == 0)

        var other = LifecycleHarness.active(aware: false) { $0.stopSignal = 2 }
        other.handle(.terminate(escalate: false))
        other.handle(.exited(.exited(143), treeEmpty: true))
        #expect(other.machine.exit?.countedStatus == 143)
    }

    @Test func exiting143OnItsOwnOrAfterTheGraceIsNotClean() {
        var unasked = LifecycleHarness.active(aware: false)
        unasked.handle(.exited(.exited(143), treeEmpty: true))
        #expect(unasked.machine.exit?.countedStatus == 143)

        var late = LifecycleHarness.active(aware: false)
        late.handle(.terminate(escalate: false))
        late.advance(by: 5)
        late.handle(.exited(.exited(143), treeEmpty: true))
        #expect(late.machine.exit?.by == .kill)
        #expect(late.machine.exit?.countedStatus == 143)
    }

    @Test func terminationStopsTheBackgroundTimers() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.handle(.terminate(escalate: false))
        h.take()
        h.advance(to: 4.9)
        #expect(h.take() == [])
        #expect(h.machine.violations.isEmpty)
    }

    @Test func exitOnItsOwnIsPassedThrough() {
        var h = LifecycleHarness.active()
        h.handle(.exited(.exited(7), treeEmpty: true))
        #expect(h.machine.exit?.by == .self)
        #expect(h.machine.exit?.countedStatus == 7)
        #expect(h.machine.isFinished)
    }

    @Test func descendantsLeftBehindGetTheLadder() {
        var h = LifecycleHarness.active()
        h.handle(.exited(.exited(0), treeEmpty: false))
        #expect(h.take().suffix(2) == [.leftProcessesBehind(signal: 15), .signalTree(15)])
        #expect(!h.machine.isFinished)
        h.take()
        h.advance(by: 5)
        #expect(h.take() == [.killTree])
        #expect(h.machine.isFinished)

        var quick = LifecycleHarness.active()
        quick.handle(.exited(.exited(0), treeEmpty: false))
        quick.handle(.treeEmptied)
        #expect(quick.machine.isFinished)
    }

    @Test func suspendedChildThatDiesIsThawedSoItsTreeCanBeSwept() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.exited(.signaled(9), treeEmpty: true)) == [.thaw, .stateChanged(.exited)])
    }

    @Test func idleStatesHaveNoDeadline() {
        for state in [ChildState.active, .suspended] {
            #expect(LifecycleHarness.inState(state).machine.nextDeadline == nil)
        }
        var h = LifecycleHarness.background()
        h.request(.done(seq: 1))
        h.handle(.freezeVerified)
        #expect(h.machine.nextDeadline == nil)
    }
}
