import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The CI judgement of a child: what fails it, and how long it ran.
@Suite(.timeLimit(.minutes(5))) struct ChildVerdictTests {
    func at(_ seconds: Double) -> Instant { Instant(nanoseconds: Int64(seconds * 1e9)) }

    /// Launched at `start`, exited at `end` with `how`.
    func run(from start: Double, to end: Double, _ how: ChildTermination) -> ChildLifecycle {
        var h = LifecycleHarness()
        h.advance(to: start)
        h.handle(.launched)
        h.advance(to: end)
        h.handle(.exited(how, treeEmpty: true))
        return h.machine
    }

    @Test func aCleanExitPassesAndItsTimeIsFromLaunchToExit() {
        let verdict = ChildVerdict(runs: [run(from: 1, to: 3.5, .exited(0))], failedWaits: [], end: at(10))
        #expect(verdict.passed)
        #expect(verdict.timeRun == .milliseconds(2500))
    }

    @Test func aNonZeroExitFailsAndTimeAddsUpOverRuns() {
        let first = run(from: 0, to: 1, .exited(3))
        let second = run(from: 2, to: 4, .exited(0))
        let verdict = ChildVerdict(runs: [first, second], failedWaits: [], end: at(10))
        #expect(verdict.failures == [.exit(first.exit!)])
        #expect(verdict.timeRun == .seconds(3))
    }

    @Test func aStopSignalWithinTheGraceCountsAsZeroAndPasses() {
        var h = LifecycleHarness.active()
        h.handle(.terminate(escalate: false))
        h.handle(.exited(.signaled(15), treeEmpty: true))
        #expect(ChildVerdict(runs: [h.machine], failedWaits: [], end: h.now).passed)
    }

    @Test func anExpiryKillFailsOnceForTheViolationNamingTheTask() throws {
        var h = LifecycleHarness.background()
        h.request(.begin(id: id("t1"), name: "upload"))
        h.advance(to: 30)
        h.handle(.exited(.signaled(9), treeEmpty: true))
        let verdict = ChildVerdict(runs: [h.machine], failedWaits: [], end: h.now)
        #expect(verdict.failures.count == 1)
        guard case .violation(let violation) = try #require(verdict.failures.first) else {
            Issue.record("not a violation: \(verdict.failures)")
            return
        }
        #expect(violation.kind == .expiry)
        #expect(violation.tasks == [TaskReference(id: id("t1"), name: "upload")])
    }

    @Test func aFailedWaitFailsAnOtherwiseCleanChild() {
        let verdict = ChildVerdict(runs: [run(from: 0, to: 1, .exited(0))], failedWaits: ["timed out"], end: at(2))
        #expect(verdict.failures == [.wait("timed out")])
    }

    @Test func aRunStillGoingCountsUpToTheEndAndOneNeverLaunchedNotAtAll() {
        var going = LifecycleHarness()
        going.handle(.launched)
        let never = LifecycleHarness().machine
        let verdict = ChildVerdict(runs: [never, going.machine], failedWaits: [], end: at(1.25))
        #expect(verdict.passed)
        #expect(verdict.timeRun == .milliseconds(1250))
    }
}
