import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The `--suspended-memory` budget, as the run core applies it between inputs: which children it
/// weighs and reclaims, on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct RunReclaimTests {
    private static let mib: UInt64 = 1 << 20

    /// Three children suspended one second apart (0 first), each holding 10 MiB, and one active.
    private func run(budget: UInt64?) -> RunHarness {
        var run = RunHarness(children: 4, settings: RunCore.Settings(suspendedMemory: budget))
        for child in 0..<3 {
            run.feed(child, .background)
            run.feed(child, .request(.done(seq: 1)))
            run.feed(child, .freezeVerified)
            run.frozenMemory[child] = 10 * Self.mib
            run.advance(by: 1)
        }
        run.frozenMemory[3] = 500 * Self.mib
        #expect(run.cores.map(\.status.state) == [.suspended, .suspended, .suspended, .active])
        return run
    }

    private func reclaimText(_ child: Int) -> [RunAction] {
        let text = "reclaimed: suspended children held 30720 KiB, over the suspended-memory budget of 20480 KiB; this one 10240 KiB"
        return [.reclaim(child: child, reason: text)]
    }

    @Test func theOneSuspendedLongestIsReclaimedUntilTheRestFit() {
        var run = run(budget: 20 * Self.mib)
        #expect(run.handle(.weighSuspendedMemory(run.children)) == reclaimText(0),
                "the active child's memory is not the suspended children's")
        #expect(run.cores[0].status.state == .terminating, "the child's core took the reclaim")
        #expect(run.handle(.weighSuspendedMemory(run.children)) == [], "the rest fit")
    }

    @Test func withinTheBudgetOrWithoutOneNothingIsReclaimed() {
        var within = run(budget: 30 * Self.mib)
        #expect(within.handle(.weighSuspendedMemory(within.children)) == [])
        var none = run(budget: nil)
        #expect(none.handle(.weighSuspendedMemory(none.children)) == [])
    }

    @Test func aTieGoesToTheLowerPriority() {
        var run = RunHarness(children: 2, settings: RunCore.Settings(suspendedMemory: 10 * Self.mib))
        run.priorities = [3, -1]
        for child in 0..<2 {
            run.feed(child, .background)
            run.feed(child, .request(.done(seq: 1)))
            run.feed(child, .freezeVerified)
            run.frozenMemory[child] = 10 * Self.mib
        }
        let actions = run.handle(.weighSuspendedMemory(run.children))
        #expect(actions.count == 1)
        guard case .reclaim(child: 1, _) = actions.last else {
            Issue.record("the child of the lower priority is not reclaimed: \(actions)")
            return
        }
    }

    /// `status` says why a child was reclaimed while it is `not-running` after it, and no longer
    /// once an event launched it again.
    @Test func whyAChildWasReclaimedStandsWhileItIsNotRunning() {
        var run = run(budget: 20 * Self.mib)
        let reason = "over the budget"
        func reclaimed(_ child: Int) -> String? {
            RunChild(name: run.name(child), core: run.cores[child], wrappedUp: run.wrappedUp[child], pid: run.pids[child],
                     mainProcessAlive: !run.reaped[child], reclaimReason: reason).reclaimedBecause
        }
        run.feed(0, .reclaim)
        #expect(reclaimed(0) == nil, "terminating: not yet reclaimed")
        run.exit(0, .signaled(9))
        run.wrapUp(0)
        #expect(run.cores[0].status.state == .notRunning)
        #expect(reclaimed(0) == reason)
        #expect(reclaimed(1) == nil, "suspended, never reclaimed")
        run.feed(0, .event(kind: "sync", text: nil))
        #expect(run.cores[0].status.state != .notRunning && reclaimed(0) == nil, "launched again for the event")
    }

    /// A child is weighed from when its freeze was verified, and only while it is suspended.
    @Test func onlySuspendedChildrenAreCandidatesFromTheirFreeze() {
        var run = run(budget: nil)
        run.feed(1, .foreground)
        let candidates = RunCore.reclaimCandidates(run.children)
        #expect(candidates == [
            ReclaimPlan.Candidate(order: 0, suspendedSince: .zero, priority: 0, bytes: 10 * Self.mib),
            ReclaimPlan.Candidate(order: 2, suspendedSince: .zero + .seconds(2), priority: 0, bytes: 10 * Self.mib),
        ])
    }
}
