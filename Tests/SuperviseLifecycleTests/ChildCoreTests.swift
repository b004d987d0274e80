import Testing
@testable import SuperviseLifecycle

/// The core across runs: when a finished run is followed by another, after which wait, and
/// what stops it; every call returns the status the shell acts on.
@Suite(.timeLimit(.minutes(5))) struct ChildCoreTests {
    private var core: ChildCore
    private var now = Instant.zero

    init() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .onFailure, delay: .seconds(1)),
                         freezerNotifies: false)
    }

    @discardableResult
    private mutating func handle(_ input: LifecycleInput) -> ChildDecision {
        let decision = core.handle(input, at: now)
        #expect(decision.status == core.status, "the decision carries the status after it")
        return decision
    }

    /// Launches a run, lets it live `seconds`, reaps it with `status`, and wraps it up.
    @discardableResult
    private mutating func run(for seconds: Double, exiting status: Int32) -> ChildDecision {
        handle(.launched)
        now = now + .milliseconds(Int64(seconds * 1000))
        handle(.exited(.exited(status), treeEmpty: true))
        return handle(.runOver)
    }

    /// Ticks at the restart's deadline; returns the actions.
    private mutating func tickToRestart() -> [LifecycleAction] {
        guard let deadline = core.status.nextDeadline else { return [] }
        now = deadline
        return handle(.tick).actions
    }

    /// The events a thaw brings are written before it, so the child is woken once, to find them
    /// (``Array/sendEventsBeforeThawing()``): a foreground from suspended, and a scheduled task's resume.
    @Test mutating func aForegroundFromSuspendedWritesItsEventsBeforeTheThaw() throws {
        handle(.launched)
        handle(.background)
        while core.status.state == .background, let deadline = core.status.nextDeadline {
            now = deadline
            handle(.tick)
        }
        handle(.freezeVerified)
        try #require(core.status.state == .suspended)
        #expect(handle(.foreground).actions == [.send(.willEnterForeground), .send(.didBecomeActive), .thaw,
                                                 .stateChanged(.active)])
    }

    /// Only events right after the thaw move: one after another action (a state change, a signal)
    /// stays after the thaw, as does everything when there is no thaw.
    @Test func onlyEventsRightAfterAThawGoBeforeIt() {
        var terminate: [LifecycleAction] = [.thaw, .stateChanged(.terminating), .send(.willTerminate(graceMS: 5))]
        terminate.sendEventsBeforeThawing()
        #expect(terminate == [.thaw, .stateChanged(.terminating), .send(.willTerminate(graceMS: 5))])
        var noThaw: [LifecycleAction] = [.send(.didBecomeActive), .stateChanged(.active)]
        noThaw.sendEventsBeforeThawing()
        #expect(noThaw == [.send(.didBecomeActive), .stateChanged(.active)])
        var thawLast: [LifecycleAction] = [.note("n"), .thaw]
        thawLast.sendEventsBeforeThawing()
        #expect(thawLast == [.note("n"), .thaw])
    }

    @Test mutating func aFailedRunIsStartedAgainAfterTheDelayWithAFreshLifecycle() {
        let over = run(for: 0.5, exiting: 3)
        #expect(over.actions == [.restartScheduled(after: .seconds(1), run: 2)])
        #expect(over.status.restartPending && over.status.state == .exited)
        #expect(over.status.nextDeadline == now + .seconds(1))
        #expect(tickToRestart() == [.startRun])
        #expect(core.status == ChildStatus(state: .launching, isFinished: false, nextDeadline: nil, restartPending: false,
                                         toldToTerminate: false))
        #expect(core.runs.count == 2 && core.runs[0].exit?.termination == .exited(3))
    }

    @Test mutating func quickFailuresWaitTwiceAsLongEachTimeAndAStableRunResetsTheWait() {
        var delays: [Duration] = []
        for seconds in [0.1, 0.1, 0.1, 12, 0.1] {
            if case .restartScheduled(let delay, _)? = run(for: seconds, exiting: 1).actions.first { delays.append(delay) }
            #expect(tickToRestart() == [.startRun])
        }
        #expect(delays == [1, 2, 4, 1, 2].map { Duration.seconds($0) })
    }

    @Test mutating func aSuccessIsNotRestartedOnFailureAndTheChildIsFinished() {
        let over = run(for: 1, exiting: 0)
        #expect(over.actions.isEmpty)
        #expect(over.status.isFinished && !over.status.restartPending && over.status.nextDeadline == nil)
    }

    @Test mutating func terminateCancelsAPendingRestartAndStopsAnyLater() {
        run(for: 0.1, exiting: 1)
        #expect(handle(.terminate(escalate: false)).actions == [.restartCancelled])
        #expect(!core.status.restartPending && core.status.nextDeadline == nil)
        #expect(handle(.runOver).actions.isEmpty, "no restart once told to terminate")
    }

    @Test mutating func aRunThatNeverStartedIsNotRestarted() {
        let failed = handle(.spawnFailed(status: 127))
        #expect(failed.status.state == .exited && failed.status.isFinished)
        #expect(core.lifecycle.exit?.termination == .exited(127))
        #expect(handle(.runOver).actions.isEmpty)
    }

    @Test mutating func aRunTheSupervisorTerminatedIsNotRestarted() {
        handle(.launched)
        handle(.terminate(escalate: false))
        handle(.exited(.signaled(15), treeEmpty: true))
        #expect(handle(.runOver).actions.isEmpty)
    }

    @Test mutating func aRunStillLeavingProcessesBehindIsNotOverYet() {
        handle(.launched)
        handle(.exited(.exited(1), treeEmpty: false))
        #expect(!core.status.isFinished)
        #expect(handle(.runOver).actions.isEmpty, "decided only once the tree is gone")
        handle(.treeEmptied)
        #expect(handle(.runOver).actions == [.restartScheduled(after: .seconds(1), run: 2)])
    }
}

/// `start` and `restart`: the user's acts, whatever the restart rules.
@Suite(.timeLimit(.minutes(5))) struct UserStartTests {
    private var core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .never, delay: .seconds(1)),
                                 freezerNotifies: false)
    private var now = Instant.zero

    private mutating func handle(_ input: LifecycleInput) -> [LifecycleAction] {
        core.handle(input, at: now).actions
    }

    private mutating func exitAndWrapUp(_ status: Int32 = 0) -> [LifecycleAction] {
        now = now + .milliseconds(100)
        _ = handle(.exited(.exited(status), treeEmpty: true))
        return handle(.runOver)
    }

    @Test mutating func startLaunchesAnExitedChildEvenAfterTerminateAndWithNoRestarts() {
        _ = handle(.launched)
        _ = handle(.terminate(escalate: false))
        #expect(exitAndWrapUp().isEmpty, "never restarted by itself")
        #expect(core.status.toldToTerminate)
        #expect(handle(.start) == [.startRun])
        #expect(core.status.state == .launching && !core.status.toldToTerminate)
        #expect(core.runs.count == 2)
    }

    @Test mutating func startIsRefusedWhileTheChildHasAProcess() {
        _ = handle(.launched)
        #expect(handle(.start) == [.refuse("cannot start: it is active (restart terminates and starts it)")])
        #expect(core.runs.count == 1)
    }

    @Test mutating func restartTerminatesThenStartsOnceTheRunIsOver() {
        _ = handle(.launched)
        let terminating = handle(.restart)
        #expect(terminating.contains(.stateChanged(.terminating)), "\(terminating)")
        #expect(exitAndWrapUp(143) == [.startRun])
        #expect(core.status.state == .launching && core.runs.count == 2)
    }

    @Test mutating func terminateAfterRestartWins() {
        _ = handle(.launched)
        _ = handle(.restart)
        _ = handle(.terminate(escalate: false))
        #expect(exitAndWrapUp(143).isEmpty)
    }

    @Test mutating func restartOfANotRunningChildStartsIt() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .never, delay: .seconds(1)),
                         freezerNotifies: false, autostart: false)
        #expect(handle(.restart) == [.startRun])
    }
}
