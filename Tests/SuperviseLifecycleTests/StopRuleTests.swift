import Testing
@testable import SuperviseLifecycle

/// A main process stopped by a signal (`signal NAME STOP`, a terminal's SIGTTIN): the state must
/// not claim a child can run when it can't. The stop is shown until it is continued, and the
/// commands that need the child to run continue it.
@Suite(.timeLimit(.minutes(5))) struct StopRuleTests {
    static let sigstop: Int32 = 19, sigtstp: Int32 = 20, sigttin: Int32 = 21

    @Test func aStopIsShownAndNotedOnceUntilTheMainProcessContinues() {
        var h = LifecycleHarness.active()
        #expect(h.handle(.mainProcessStopped(signal: Self.sigttin)) == [.stoppedBySignal(Self.sigttin)])
        #expect(h.machine.stoppedBy == Self.sigttin)
        #expect(h.state == .active, "the state is what was asked; the flag says it can't run")
        #expect(h.handle(.mainProcessStopped(signal: Self.sigttin)) == [], "noted once")
        #expect(h.handle(.mainProcessContinued) == [.note("its main process was continued")])
        #expect(h.machine.stoppedBy == nil)
        #expect(h.handle(.mainProcessContinued) == [], "a continue of a running process says nothing")
    }

    @Test(arguments: [ChildState.active, .background])
    func foregroundContinuesAStoppedChild(from state: ChildState) {
        var h = LifecycleHarness.inState(state)
        h.handle(.mainProcessStopped(signal: Self.sigstop))
        let actions = h.handle(.foreground)
        #expect(actions.first == .continueTree, "\(actions)")
        #expect(h.machine.stoppedBy == nil, "SIGCONT continues it as it is sent")
        #expect(h.state == .active)
        #expect(h.handle(.foreground) == [], "nothing left to continue")
    }

    @Test func aThawContinuesAChildStoppedBeforeItWasFrozen() {
        var h = LifecycleHarness.active { $0.window = .zero }
        h.handle(.mainProcessStopped(signal: Self.sigstop))
        h.handle(.background)
        h.handle(.freezeVerified)
        #expect(h.state == .suspended)
        #expect(h.machine.stoppedBy == Self.sigstop, "still stopped while suspended")
        h.take()
        let actions = h.handle(.foreground)
        #expect(Array(actions.prefix(2)) == [.thaw, .continueTree], "\(actions)")
        #expect(h.machine.stoppedBy == nil)
        #expect(h.state == .active)
    }

    @Test func theFreezesOwnSIGSTOPIsNotASignalStop() {
        var h = LifecycleHarness.suspending()
        #expect(h.handle(.mainProcessStopped(signal: Self.sigstop)) == [])
        h.handle(.freezeVerified)
        #expect(h.handle(.mainProcessStopped(signal: Self.sigstop)) == [])
        #expect(h.machine.stoppedBy == nil)
        #expect(h.handle(.foreground) == [.thaw, .send(.willEnterForeground), .send(.didBecomeActive),
                                          .stateChanged(.active)])
    }

    @Test func anotherStopWhileSuspendedIsShown() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.mainProcessStopped(signal: Self.sigtstp)) == [.stoppedBySignal(Self.sigtstp)])
    }

    @Test func terminateAndAnEventContinueAStoppedChild() {
        var terminated = LifecycleHarness.active()
        terminated.handle(.mainProcessStopped(signal: Self.sigstop))
        #expect(terminated.handle(.terminate(escalate: false)).contains(.continueTree),
                "an aware child must run to act on will-terminate")
        var woken = LifecycleHarness.background()
        woken.handle(.mainProcessStopped(signal: Self.sigstop))
        #expect(woken.handle(.event(kind: "push", text: nil)).first == .continueTree)
    }

    @Test func anExitForgetsTheStop() {
        var h = LifecycleHarness.active()
        h.handle(.mainProcessStopped(signal: Self.sigstop))
        #expect(!h.handle(.exited(.signaled(9), treeEmpty: true)).contains(.continueTree))
        #expect(h.machine.stoppedBy == nil)
        #expect(h.handle(.mainProcessStopped(signal: Self.sigstop)) == [], "no process to be stopped")
    }
}
