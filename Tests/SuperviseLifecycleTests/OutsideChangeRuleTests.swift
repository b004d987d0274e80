import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// What someone else does to a suspended child: a thaw is undone, a held-back SIGKILL is let through.
@Suite(.timeLimit(.minutes(5))) struct OutsideChangeRuleTests {
    @Test func suspendedChildThawedFromOutsideIsFrozenAgainAndVerified() {
        var h = LifecycleHarness.suspended()
        h.advance(by: 10)
        #expect(h.handle(.thawedFromOutside(seen: "cgroup.freeze says 0")) == [
            .note("thawed from outside (cgroup.freeze says 0): freezing it again"),
            .stateChanged(.suspending), .freeze,
        ])
        #expect(h.machine.nextDeadline == h.now + .seconds(1), "the new freeze has its own timeout")
        h.advance(by: 0.25)
        #expect(h.handle(.freezeVerified) == [.stateChanged(.suspended), .frozen(took: .milliseconds(250))])
        #expect(h.machine.nextDeadline == nil)
    }

    @Test func refreezeNotVerifiedInTimeIsUndoneLikeAnyFreeze() {
        var h = LifecycleHarness.suspended()
        h.handle(.thawedFromOutside(seen: "x"))
        h.take()
        h.advance(by: 1)
        #expect(h.take() == [.checkFrozen, .thaw, .freezeFailed("freeze-failed: not verified frozen within 1s; thawed"),
                             .stateChanged(.background)])
    }

    @Test func refreezeKeepsTheBackgroundEntry() {
        var h = LifecycleHarness.suspended()
        h.handle(.thawedFromOutside(seen: "x"))
        h.handle(.freezeVerified)
        h.take()
        h.handle(.event(kind: "push", text: nil))
        #expect(h.sent.first == .didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000))
    }

    @Test(arguments: ChildState.allCases.filter { $0 != .suspended })
    func outsideThawChangesNothingElsewhere(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.thawedFromOutside(seen: "x")) == [])
        #expect(h.state == state)
    }

    @Test func killHeldBackByTheFreezeIsLetThroughAndTheChildTerminates() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.killedWhileFrozen) == [
            .thaw,
            .note("its main process was sent SIGKILL from outside while frozen: thawed so that it can die"),
            .stateChanged(.terminating),
        ])
        #expect(h.machine.nextDeadline == nil, "no grace: the kill is already under way")
        #expect(h.handle(.exited(.signaled(9), treeEmpty: true)) == [.stateChanged(.exited)], "thawed once, not twice")
        let exit = h.machine.exit
        #expect(exit?.by == .self && exit?.inTime == nil && exit?.countedStatus == 137)
    }

    @Test func dyingChildRefusesCommandsThatWouldWakeIt() {
        var h = LifecycleHarness.suspended()
        h.handle(.killedWhileFrozen)
        #expect(h.handle(.foreground).refusals == ["cannot bring to the foreground: the child is terminating"])
        #expect(h.handle(.event(kind: "push", text: nil)).refusals.count == 1)
        #expect(h.handle(.terminate(escalate: false)) == [])
        #expect(h.handle(.terminate(escalate: true)) == [], "nothing to escalate: SIGKILL is pending already")
        #expect(h.state == .terminating)
    }

    @Test(arguments: ChildState.allCases.filter { $0 != .suspended })
    func heldBackKillChangesNothingElsewhere(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.killedWhileFrozen) == [])
        #expect(h.state == state)
    }

    @Test func onlyControlInputsAreCommands() {
        let commands: [LifecycleInput] = [.background, .foreground, .event(kind: "k", text: nil), .terminate(escalate: false)]
        let others: [LifecycleInput] = [.launched, .freezeVerified, .thawedFromOutside(seen: "x"), .killedWhileFrozen,
                                        .tick, .treeEmptied, .exited(.exited(0), treeEmpty: true)]
        #expect(commands.map(\.isCommand) == [true, true, true, true])
        #expect(others.filter(\.isCommand).isEmpty)
    }
}
