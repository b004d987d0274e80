import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The not-running state across runs: a child never started, launched into the background for
/// an event (events queued behind that launch), reclaimed, and launched again; on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct NotRunningTests {
    private var core: ChildCore
    private var now = Instant.zero

    init() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .always, delay: .seconds(1)),
                         freezerNotifies: false, autostart: false)
    }

    @discardableResult
    private mutating func handle(_ input: LifecycleInput) -> [LifecycleAction] {
        let decision = core.handle(input, at: now)
        #expect(decision.status == core.status, "the decision carries the status after it")
        return decision.actions
    }

    private mutating func advance(by seconds: Double) { now = now + .milliseconds(Int64(seconds * 1000)) }

    private static let entry1 = Event.didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000)

    /// Launched for `push`, `done 1` read, frozen: suspended.
    private mutating func suspendAfterAnEvent() {
        handle(.event(kind: "push", text: nil))
        handle(.launched)
        handle(.request(.done(seq: 1)))
        handle(.freezeVerified)
        #expect(core.status.state == .suspended)
    }

    /// Reclaimed while suspended: killed, reaped, wrapped up.
    private mutating func reclaim() {
        #expect(handle(.reclaim) == [.stateChanged(.terminating), .killTree, .thaw])
        handle(.exited(.signaled(9), treeEmpty: true))
        #expect(handle(.runOver) == [], "a reclaimed child is never restarted by policy, even 'always'")
    }

    @Test mutating func aChildNeverStartedIsNotRunningWithNothingToDo() {
        let status = core.status
        #expect(status.state == .notRunning && status.isFinished && !status.restartPending && !status.toldToTerminate)
        #expect(status.nextDeadline == nil)
        #expect(handle(.runOver) == [], "nothing to restart")
        #expect(core.runs.count == 1 && core.lifecycle.launchedAt == nil && core.lifecycle.exit == nil)
    }

    @Test mutating func anEventLaunchesItIntoTheBackgroundWithTheEventInTheFirstEntry() {
        #expect(handle(.event(kind: "push", text: "new mail")) == [.startRun])
        #expect(core.status.state == .launching)
        advance(by: 0.25)
        #expect(handle(.launched) == [
            .note("launched for event push"),
            .send(.didFinishLaunching(.background)), .send(Self.entry1),
            .send(.event(seq: 1, kind: "push", text: "new mail")), .stateChanged(.background),
        ])
        #expect(core.status.nextDeadline == now + .seconds(5), "the window counts from the launch")
        #expect(core.runs.count == 1, "the run that never started is replaced, not kept")
        #expect(handle(.request(.hello)) == [])
        #expect(handle(.request(.done(seq: 1))) == [.stateChanged(.suspending), .freeze], "one done covers both")
        #expect(core.lifecycle.aware)
    }

    @Test mutating func itsLaunchIgnoresTheLaunchSetting() {
        var settings = LifecycleSettings()
        settings.launch = .foreground
        core = ChildCore(settings: settings, restart: RestartRules(), freezerNotifies: false, autostart: false)
        handle(.event(kind: "push", text: nil))
        #expect(handle(.launched).contains(.send(.didFinishLaunching(.background))))
        #expect(core.status.state == .background)
    }

    @Test mutating func eventsWhileItLaunchesAreQueuedInOrderAndFollowAsNewEntries() {
        handle(.event(kind: "a", text: nil))
        #expect(handle(.event(kind: "b", text: "two")) == [])
        #expect(handle(.event(kind: "c", text: nil)) == [])
        let sent = handle(.launched).compactMap { if case .send(let event) = $0 { event } else { nil } }
        #expect(sent == [
            .didFinishLaunching(.background), Self.entry1, .event(seq: 1, kind: "a", text: nil),
            .didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000), .event(seq: 2, kind: "b", text: "two"),
            .didEnterBackground(seq: 3, windowMS: 5000, limitMS: 30000), .event(seq: 3, kind: "c", text: nil),
        ])
        #expect(handle(.request(.done(seq: 1))).count == 1, "done 1 is stale once entry 3 began")
        #expect(handle(.request(.done(seq: 3))) == [.stateChanged(.suspending), .freeze])
    }

    @Test mutating func theQueueBehindALaunchIsBounded() {
        handle(.event(kind: "first", text: nil))
        for _ in 1..<ChildLifecycle.launchQueueLimit { #expect(handle(.event(kind: "more", text: nil)) == []) }
        #expect(handle(.event(kind: "over", text: nil))
            == [.refuse("cannot deliver event 'over': 64 events already wait for the child's launch")])
        let events = handle(.launched).filter { if case .send(.event) = $0 { true } else { false } }
        #expect(events.count == ChildLifecycle.launchQueueLimit)
    }

    @Test func anEventToAChildLaunchingForAnotherReasonIsStillRefused() {
        var core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false)
        #expect(core.handle(.event(kind: "push", text: nil), at: .zero).actions
            == [.refuse("cannot deliver event 'push': the child is launching")])
    }

    @Test mutating func aReclaimedChildIsNotRunningAndItsNextLaunchSaysReclaimed() {
        suspendAfterAnEvent()
        advance(by: 3)
        reclaim()
        #expect(core.status.state == .notRunning && core.status.isFinished && core.status.nextDeadline == nil)
        #expect(core.lifecycle.exit?.by == .reclaim && core.lifecycle.exit?.countedStatus == 0)
        let verdict = ChildVerdict(runs: core.runs, failedWaits: [], end: now)
        #expect(verdict.passed, "a reclaim is never a failure")
        #expect(handle(.event(kind: "fetch", text: nil)) == [.startRun])
        #expect(handle(.launched).prefix(2) == [.note("launched for event fetch"),
                                                .send(.didFinishLaunching(.background, reclaimed: true))])
        #expect(core.runs.count == 2 && core.runs[0].exit?.by == .reclaim)
    }

    @Test mutating func aChildThatExitedOnItsOwnIsLaunchedForAnEventWithoutTheWord() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .never), freezerNotifies: false)
        handle(.launched)
        handle(.exited(.exited(0), treeEmpty: true))
        #expect(handle(.runOver) == [])
        #expect(core.status.state == .exited && core.status.isFinished)
        #expect(handle(.event(kind: "push", text: nil)) == [.startRun], "restart = never does not forbid it")
        #expect(handle(.launched).contains(.send(.didFinishLaunching(.background, reclaimed: false))))
        #expect(core.runs.count == 2)
    }

    @Test mutating func anEventCancelsAPendingRestartAndLaunchesAtOnce() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(policy: .onFailure, delay: .seconds(5)),
                         freezerNotifies: false)
        handle(.launched)
        handle(.exited(.exited(1), treeEmpty: true))
        #expect(handle(.runOver) == [.restartScheduled(after: .seconds(5), run: 2)])
        #expect(handle(.event(kind: "push", text: nil)) == [.restartCancelled, .startRun])
        #expect(!core.status.restartPending && core.status.nextDeadline == nil)
        handle(.launched)
        #expect(core.status.state == .background)
    }

    @Test mutating func anEventWaitsUntilWhatTheLastRunLeftBehindIsGone() {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false)
        handle(.launched)
        handle(.exited(.exited(0), treeEmpty: false))
        #expect(handle(.event(kind: "push", text: nil))
            == [.refuse("cannot deliver event 'push': processes its last run left behind are still being stopped")])
        handle(.treeEmptied)
        handle(.runOver)
        #expect(handle(.event(kind: "push", text: nil)) == [.startRun])
    }

    @Test(arguments: [false, true])
    mutating func aChildToldToTerminateIsNeverLaunchedAgain(startedFirst: Bool) {
        core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false, autostart: false)
        if startedFirst {
            handle(.event(kind: "push", text: nil))
            handle(.launched)
            handle(.exited(.exited(0), treeEmpty: true))
            handle(.runOver)
        }
        let state = core.status.state
        #expect(handle(.terminate(escalate: false)) == [])
        #expect(core.status.toldToTerminate && core.status.state == state && core.status.isFinished)
        #expect(handle(.event(kind: "push", text: nil))
            == [.refuse("cannot deliver event 'push': the child was told to terminate")])
    }

    @Test mutating func aRunLaunchedForAnEventIsRestartedByPolicyAsAnyOther() {
        handle(.event(kind: "push", text: nil))
        handle(.launched)
        handle(.exited(.exited(3), treeEmpty: true))
        #expect(handle(.runOver) == [.restartScheduled(after: .seconds(1), run: 2)])
        advance(by: 1)
        #expect(handle(.tick) == [.startRun])
        #expect(handle(.launched).first == .send(.didFinishLaunching(.foreground)), "a restart launches as configured")
    }
}

/// Which suspended children a budget reclaims.
@Suite(.timeLimit(.minutes(5))) struct ReclaimPlanTests {
    private func candidate(_ order: Int, since seconds: Int64, priority: Int = 0, mib: UInt64 = 10)
        -> ReclaimPlan.Candidate
    {
        ReclaimPlan.Candidate(order: order, suspendedSince: Instant(nanoseconds: seconds * 1_000_000_000),
                              priority: priority, bytes: mib << 20)
    }

    @Test func nothingIsReclaimedWithinTheBudget() {
        #expect(ReclaimPlan.victims([candidate(0, since: 1), candidate(1, since: 2)], budget: 20 << 20) == [])
        #expect(ReclaimPlan.victims([], budget: 0) == [])
    }

    @Test func theOneSuspendedLongestGoesFirstUntilTheRestFit() {
        let candidates = [candidate(0, since: 5), candidate(1, since: 2), candidate(2, since: 9), candidate(3, since: 1)]
        #expect(ReclaimPlan.victims(candidates, budget: 20 << 20) == [3, 1])
        #expect(ReclaimPlan.victims(candidates, budget: (20 << 20) - 1) == [3, 1, 0])
        #expect(ReclaimPlan.victims(candidates, budget: 0) == [3, 1, 0, 2])
    }

    @Test func tiesGoToTheLowerPriorityThenTheEarlierInTheConfig() {
        let candidates = [candidate(0, since: 1, priority: 5), candidate(1, since: 1, priority: -1),
                          candidate(2, since: 1), candidate(3, since: 1)]
        #expect(ReclaimPlan.victims(candidates, budget: 0) == [1, 2, 3, 0])
    }

    @Test func aBigChildCanBringTheRestUnderAtOnce() {
        let candidates = [candidate(0, since: 1, mib: 100), candidate(1, since: 2), candidate(2, since: 3)]
        #expect(ReclaimPlan.victims(candidates, budget: 25 << 20) == [0])
    }
}
