import Testing
@testable import SuperviseLifecycle

/// A look at a suspended child for a change from outside that goes on over several turns (a
/// large sigstop tree, in slices): the core asks for it again at once, says a look goes on, and
/// forgets it once the child leaves `suspended`.
@Suite(.timeLimit(.minutes(5))) struct LookSliceRuleTests {
    @Test func anUnfinishedLookIsAskedForAgainAtOnceUntilItEnds() {
        var h = LifecycleHarness.suspended()
        #expect(h.machine.nextDeadline == nil && !h.machine.lookGoesOn, "a suspended child waits for nothing")
        for _ in 0..<3 {
            #expect(h.handle(.lookUnfinished) == [])
            #expect(h.machine.lookGoesOn && h.machine.nextDeadline == h.now, "not looked at again at once")
            h.advance(by: 0.001)
            #expect(h.take() == [.lookForOutsideChange])
            #expect(!h.machine.lookGoesOn, "the look is asked for: it says itself whether it goes on")
        }
        #expect(h.machine.nextDeadline == nil, "a look that ended leaves nothing to wait for")
        #expect(h.state == .suspended)
    }

    /// The supervisor was not running (its look due long ago): the look is asked for once, and
    /// no deadline of the child moves for it.
    @Test func aLookDueAfterAGapIsAskedForOnce() {
        var h = LifecycleHarness.suspended()
        h.handle(.lookUnfinished)
        h.handle(.supervisorGap(.seconds(30)))
        #expect(h.machine.nextDeadline == h.now, "the look falls due, it does not move")
        h.advance(by: 60)
        #expect(h.take() == [.lookForOutsideChange])
        h.advance(by: 60)
        #expect(h.take() == [])
    }

    /// What the look found ends it: a thaw from outside is frozen again, and a command that
    /// thaws the child leaves no look waiting.
    @Test(arguments: [LifecycleInput.thawedFromOutside(seen: "process 7 was continued"), .foreground, .killedWhileFrozen])
    func leavingSuspendedEndsTheLook(input: LifecycleInput) {
        var h = LifecycleHarness.suspended()
        h.handle(.lookUnfinished)
        h.handle(input)
        #expect(h.state != .suspended)
        #expect(!h.machine.lookGoesOn)
        h.advance(by: 0.001)
        #expect(!h.take().contains(.lookForOutsideChange))
    }

    @Test(arguments: ChildState.allCases.filter { $0 != .suspended })
    func noLookGoesOnElsewhere(state: ChildState) {
        var h = LifecycleHarness.inState(state)
        #expect(h.handle(.lookUnfinished) == [])
        #expect(!h.machine.lookGoesOn)
    }
}
