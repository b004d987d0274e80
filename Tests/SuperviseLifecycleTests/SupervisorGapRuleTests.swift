import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// Time the supervisor did not run: a child is never judged on it, and always gets `expire` the
/// expiry warning before an expiry kill (docs/protocol.md, "Time the supervisor did not run").
@Suite(.timeLimit(.minutes(5))) struct SupervisorGapRuleTests {
    // MARK: The expiry rule, whatever the clocks do

    @Test func limitPassedUnseenStillGivesExpireTheWarningBeforeTheKill() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 20)
        h.sleep(by: 11)  // warning (25 s) and limit (30 s) fall due together, no gap noticed
        h.handle(.tick)
        #expect(h.take() == [.send(.expire(id("t")))])
        #expect(h.state == .background)
        #expect(h.machine.nextDeadline == Instant(nanoseconds: 36_000_000_000))
        h.advance(to: 35.999)
        #expect(h.take() == [])
        h.advance(to: 36)
        #expect(h.machine.violations.map(\.kind) == [.expiry])
        #expect(h.machine.violations.first?.at == Instant(nanoseconds: 36_000_000_000))
    }

    @Test func expireSentLateCanStillBeAnswered() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 24.9)
        h.sleep(by: 5.3)  // the warning was due at 25, seen at 30.2: the limit passed too
        h.handle(.tick)
        #expect(h.sent == [.expire(id("t"))])
        h.advance(by: 1)
        #expect(h.request(.end(id: id("t"))) == [.stateChanged(.suspending), .freeze])
        #expect(h.machine.violations.isEmpty)
    }

    @Test func expireSentInTimeKeepsTheLimit() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 25)
        #expect(h.take() == [.send(.expire(id("t")))])
        h.sleep(by: 7)  // the limit falls due late, but expire had its warning
        h.handle(.tick)
        #expect(h.machine.violations.map(\.kind) == [.expiry])
    }

    // MARK: A gap moves the deadlines that judge the child

    @Test func gapMovesTheExpiryWarningAndTheLimit() {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t"), name: nil))
        h.advance(to: 3)
        h.sleep(by: 24)
        h.handle(.supervisorGap(.seconds(24)))
        h.handle(.tick)
        #expect(h.take() == [])
        h.advance(to: 48.999)
        #expect(h.take() == [])
        h.advance(to: 49)
        #expect(h.take() == [.send(.expire(id("t")))])
        h.advance(to: 53.999)
        #expect(h.machine.violations.isEmpty)
        h.advance(to: 54)
        #expect(h.machine.violations.map(\.kind) == [.expiry])
    }

    @Test func windowThatPassedDuringTheGapIsNotJudged() {
        var h = LifecycleHarness.background()
        h.advance(to: 1)
        h.sleep(by: 7)
        h.handle(.supervisorGap(.seconds(7)))
        h.handle(.tick)
        #expect(h.state == .background)
        h.advance(to: 11.9)
        #expect(h.request(.done(seq: 1)) == [.stateChanged(.suspending), .freeze])
        #expect(h.machine.violations.isEmpty)
    }

    @Test func windowMovedByTheGapIsStillJudgedAtItsNewEnd() {
        var h = LifecycleHarness.background()
        h.advance(to: 1)
        h.sleep(by: 7)
        h.handle(.supervisorGap(.seconds(7)))
        h.advance(to: 11.999)
        #expect(h.machine.violations.isEmpty)
        h.advance(to: 12)
        #expect(h.machine.violations.map(\.kind) == [.window])
    }

    @Test func gapMovesTheFreezeTimeout() {
        var h = LifecycleHarness.suspending()
        h.sleep(by: 3)
        h.handle(.supervisorGap(.seconds(3)))
        h.handle(.tick)
        #expect(h.state == .suspending)
        h.handle(.freezeVerified)
        #expect(h.state == .suspended)
    }

    @Test func gapMovesTheGrace() {
        var h = LifecycleHarness.terminating()
        h.sleep(by: 6)
        h.handle(.supervisorGap(.seconds(6)))
        h.handle(.tick)
        #expect(!h.take().contains(.killTree))
        h.handle(.exited(.exited(0), treeEmpty: true))
        #expect(h.machine.exit?.by == .terminate)
        #expect(h.machine.exit?.inTime == true)
    }

    @Test func gapLeavesTheFreezeRecheckDue() {
        var h = LifecycleHarness.suspending()
        h.handle(.notFrozenYet)
        h.take()
        let recheck = h.machine.nextDeadline
        h.handle(.supervisorGap(.seconds(3)))
        #expect(h.machine.nextDeadline == recheck)
    }

    @Test func gapLeavesARestartBackOffAsItWas() {
        var core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .always), freezerNotifies: false)
        _ = core.handle(.launched, at: .zero)
        _ = core.handle(.exited(.exited(1), treeEmpty: true), at: .zero)
        let scheduled = core.handle(.runOver, at: .zero).status.nextDeadline
        #expect(scheduled != nil)
        #expect(core.handle(.supervisorGap(.seconds(3)), at: .zero).status.nextDeadline == scheduled)
    }

    // MARK: Noticing a gap

    @Test func timerLateByMoreThanTheThresholdIsAGap() {
        let gap = SupervisorGap.detect(waitBegan: instant(1), deadline: instant(2), woke: instant(5.5))
        #expect(gap == SupervisorGap(at: instant(5.5), length: .seconds(4.5), late: .seconds(3.5)))
    }

    @Test func ordinaryLatenessIsNoGap() {
        #expect(SupervisorGap.detect(waitBegan: instant(1), deadline: instant(2), woke: instant(2.25)) == nil)
        #expect(SupervisorGap.detect(waitBegan: instant(1), deadline: instant(2), woke: instant(2.251)) != nil)
    }

    @Test func wakeBeforeTheDeadlineOrWithoutOneIsNoGap() {
        #expect(SupervisorGap.detect(waitBegan: instant(1), deadline: instant(9), woke: instant(8)) == nil)
        #expect(SupervisorGap.detect(waitBegan: instant(1), deadline: nil, woke: instant(100)) == nil)
    }

    @Test func deadlineAlreadyPastWhenTheWaitBeganCountsFromTheWait() {
        // The loop was busy (running) past the deadline: only the wait itself can be a gap.
        #expect(SupervisorGap.detect(waitBegan: instant(5), deadline: instant(2), woke: instant(5.1)) == nil)
        #expect(SupervisorGap.detect(waitBegan: instant(5), deadline: instant(2), woke: instant(6))?.late == .seconds(1))
    }

    private func instant(_ seconds: Double) -> Instant { Instant(nanoseconds: Int64(seconds * 1e9)) }
}
