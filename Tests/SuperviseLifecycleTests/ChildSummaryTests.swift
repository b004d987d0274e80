import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The figures of the end-of-run summary: time out of the foreground, freezes, tasks, runs.
@Suite(.timeLimit(.minutes(5))) struct ChildSummaryTests {
    func summary(_ runs: [ChildLifecycle]) -> ChildSummary {
        ChildSummary(runs: runs, verdict: ChildVerdict(runs: runs, failedWaits: [], end: runs.last!.exit?.at ?? .zero))
    }

    @Test func backgroundSuspendingAndSuspendedCountAsBackgroundTimeAndFreezesAreCounted() {
        var h = LifecycleHarness.active()
        h.advance(to: 1)
        h.handle(.background)          // 1 s: background
        h.advance(to: 1.5)
        h.request(.done(seq: 1))       // suspending
        h.advance(to: 1.75)
        h.handle(.freezeVerified)      // suspended
        h.advance(to: 3)
        h.handle(.foreground)          // active again: 2 s out of the foreground
        h.advance(to: 10)
        h.handle(.background)
        h.advance(to: 10.5)
        h.handle(.exited(.exited(0), treeEmpty: true))  // 0.5 s more
        #expect(h.machine.backgroundTime == .milliseconds(2500))
        #expect(h.machine.freezes == 1)
    }

    @Test func aRunLaunchedInTheBackgroundCountsFromItsLaunch() {
        var h = LifecycleHarness { $0.launch = .background }
        h.advance(to: 2)
        h.handle(.launched)
        h.advance(to: 2.25)
        h.handle(.exited(.exited(0), treeEmpty: true))
        #expect(h.machine.backgroundTime == .milliseconds(250))
    }

    @Test func tasksAreCountedAsAskedAndExpiredOverRunsAndTheLastExitIsKept() {
        var first = LifecycleHarness.background { $0.limit = .seconds(10); $0.expiryWarning = .seconds(2) }
        first.request(.begin(id: id("a"), name: "upload"))
        first.request(.begin(id: id("b"), name: nil))
        first.advance(by: 9)  // the warning: both expire
        first.request(.end(id: id("a")))
        first.request(.end(id: id("b")))
        first.handle(.exited(.exited(3), treeEmpty: true))
        var second = LifecycleHarness.active()
        second.request(.begin(id: id("c"), name: nil))
        second.handle(.exited(.exited(0), treeEmpty: true))
        let result = summary([first.machine, second.machine])
        #expect(result.runs == 2)
        #expect(result.tasksAsked == 3)
        #expect(result.tasksExpired == 2)
        #expect(result.lastExit?.termination == .exited(0))
        #expect(result.state == .exited)
        #expect(!result.passed)  // the first run's 3, by the verdict's rule
    }
}
