import Testing
@testable import SuperviseLifecycle

/// A thaw that goes on over several turns (a large sigstop tree, in slices): the core asks for
/// its next share at once, whatever the state the thaw led to, says a thaw goes on meanwhile,
/// and keeps the rest of its timers.
@Suite(.timeLimit(.minutes(5))) struct ThawSliceRuleTests {
    /// `foreground` thaws the suspended child; each share that goes on is asked for again at
    /// the next tick, until the freezer says nothing of the thaw is left.
    @Test func anUnfinishedThawIsAskedForAgainAtOnceUntilItEnds() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.foreground).contains(.thaw))
        h.take()
        #expect(h.state == .active && !h.machine.thawGoesOn && h.machine.nextDeadline == nil)
        for _ in 0..<3 {
            #expect(h.handle(.thawUnfinished) == [])
            #expect(h.machine.thawGoesOn && h.machine.nextDeadline == h.now, "not thawed on at once")
            h.advance(by: 0.001)
            #expect(h.take() == [.continueThaw])
            #expect(!h.machine.thawGoesOn, "the next share is asked for: it says itself whether it goes on")
        }
        #expect(h.machine.nextDeadline == nil, "a thaw that ended leaves nothing to wait for")
        #expect(h.state == .active)
    }

    /// A thaw that goes on after a `terminate` of the suspended child: its grace still runs, and
    /// both are asked for at their time.
    @Test func aThawThatGoesOnKeepsTheGraceRunning() {
        var h = LifecycleHarness.suspended { $0.grace = .seconds(2) }
        #expect(h.handle(.terminate(escalate: false)).contains(.thaw))
        h.take()
        h.handle(.thawUnfinished)
        #expect(h.state == .terminating && h.machine.nextDeadline == h.now)
        h.advance(by: 0.001)
        #expect(h.take() == [.continueThaw])
        #expect(h.machine.nextDeadline == h.now + .milliseconds(1999), "the grace moved: \(String(describing: h.machine.nextDeadline))")
        h.advance(by: 2.001)
        #expect(h.take() == [.killTree])
    }

    /// The supervisor was not running (the next share due long ago): it is asked for once, and
    /// the child's deadlines move for the gap as always.
    @Test func aThawDueAfterAGapIsAskedForOnce() {
        var h = LifecycleHarness.suspended()
        h.handle(.foreground)
        h.handle(.thawUnfinished)
        h.handle(.supervisorGap(.seconds(30)))
        h.take()
        #expect(h.machine.nextDeadline == h.now, "the thaw falls due, it does not move")
        h.advance(by: 60)
        #expect(h.take() == [.continueThaw])
        h.advance(by: 60)
        #expect(h.take() == [])
    }

    /// A new thaw (the child frozen and thawed again meanwhile) starts with nothing going on:
    /// whether it goes on, the freezer says.
    @Test func aNewThawForgetsTheOldOnesProgress() {
        var h = LifecycleHarness.suspended()
        h.handle(.foreground)
        h.handle(.thawUnfinished)
        h.handle(.background)
        h.request(.done(seq: 2))
        h.handle(.freezeVerified)
        #expect(h.state == .suspended)
        #expect(h.handle(.foreground).contains(.thaw))
        #expect(!h.machine.thawGoesOn)
    }
}
