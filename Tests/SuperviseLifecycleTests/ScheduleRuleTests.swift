import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// Scheduled tasks (`schedule`, `cancel`, `task-completed`): due time, conditions, the entry
/// made for a task, its time, expiry, completion and the refreeze; on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct ScheduleRuleTests {
    private typealias H = ScheduleHarness
    private static let sync = id("sync")

    @Test func aSuspendedChildIsThawedForItsTaskWhenDueAndFrozenAgainWhenItCompletes() {
        var h = H.suspended()
        #expect(h.request(H.schedule("sync", earliest: 900)) == [])
        #expect(h.core.status.nextDeadline == Instant.zero + .seconds(900), "due at earliest")
        h.advance(to: 899.999)
        #expect(h.state == .suspended && h.take() == [])
        h.advance(to: 900)
        #expect(h.take() == [
            .send(.didEnterBackground(seq: 2, windowMS: 5000, limitMS: 30000)),
            .send(.task(id: Self.sync, kind: .refresh, limitMS: 30000)), .thaw,
            .note("scheduled task sync (refresh) started: 30s"), .stateChanged(.background),
        ])
        h.advance(by: 10)
        #expect(h.state == .background, "the window passed, but the task holds the child")
        #expect(h.request(.taskCompleted(id: Self.sync, success: true))
            == [.note("scheduled task sync ended: success"), .stateChanged(.suspending), .freeze])
        h.handle(.freezeVerified)
        #expect(h.state == .suspended)
        let record = h.core.lifecycle.scheduledTasks
        #expect(record.count == 1 && record[0].outcome == .success && record[0].requestedAt == .zero
            && record[0].startedAt == Instant.zero + .seconds(900) && record[0].endedAt == Instant.zero + .seconds(910))
        h.take()
        h.advance(by: 3600)
        #expect(h.take().isEmpty, "a requested task runs once")
    }

    @Test func completionBeforeTheWindowEndsFreezesAtOnce() {
        var h = H.suspended()
        h.request(H.schedule("sync"))
        #expect(h.state == .background, "due at once: started in the same decision")
        h.take()
        h.advance(by: 0.5)
        #expect(h.request(.taskCompleted(id: Self.sync, success: true)).contains(.freeze))
    }

    @Test func aTaskWaitsForItsConditionsAndRunsOnceWhenTheyHold() {
        var h = H.suspended()
        h.handle(.conditions([.power]))
        h.request(H.schedule("sync", earliest: 60, requires: [.idle, .power]))
        h.advance(to: 60)
        #expect(h.state == .suspended && h.take() == [], "due, but the machine is not idle")
        #expect(h.core.status.awaitedConditions == [.idle], "what the shell must watch")
        #expect(h.core.status.nextDeadline == nil, "no timer while it waits for conditions")
        h.now = Instant.zero + .seconds(500)
        h.handle(.conditions([.power, .network]))
        #expect(h.state == .suspended && h.core.status.awaitedConditions == [.idle])
        h.handle(.conditions([.idle, .power]))
        #expect(h.sent.contains(.task(id: Self.sync, kind: .refresh, limitMS: 30000)))
        #expect(h.core.status.awaitedConditions.isEmpty)
        h.take()
        h.handle(.conditions([.idle, .power]))
        #expect(h.sent.isEmpty, "none runs twice")
    }

    @Test func aChildInTheForegroundGetsItsTaskWhenItNextEntersTheBackground() {
        var h = H()
        h.handle(.launched)
        h.request(.hello)
        h.take()
        h.request(H.schedule("c", .processing))
        h.advance(by: 60)
        #expect(h.state == .active && h.sent.isEmpty, "deferred in the foreground")
        h.take()
        #expect(h.handle(.background) == [
            .send(.willResignActive), .send(.didEnterBackground(seq: 1, windowMS: 5000, limitMS: 300_000)),
            .send(.task(id: id("c"), kind: .processing, limitMS: 300_000)),
            .note("scheduled task c (processing) started: 300s"), .stateChanged(.background),
        ])
    }

    @Test func aTaskHeldPastItsTimeIsExpiredThenKilledAsABeginTaskAtTheLimit() {
        var h = H.suspended { $0.refreshTime = .seconds(10); $0.expiryWarning = .seconds(2) }
        h.request(H.schedule("sync"))
        #expect(h.sent.contains(.didEnterBackground(seq: 2, windowMS: 5000, limitMS: 10000)))
        h.take()
        h.advance(to: 7.999)
        #expect(h.take() == [])
        h.advance(to: 8)
        #expect(h.take() == [.send(.expire(Self.sync))])
        h.advance(to: 10)
        let violation = Violation(kind: .expiry, at: Instant.zero + .seconds(10), action: .killed,
                                  tasks: [TaskReference(id: Self.sync, name: "refresh")])
        #expect(h.take() == [.note("scheduled task sync ended: expired"), .stateChanged(.terminating),
                             .violation(violation), .killTree])
        h.handle(.exited(.signaled(9), treeEmpty: true))
        let record = h.core.lifecycle.scheduledTasks
        #expect(record.count == 1 && record[0].outcome == .expired
            && record[0].expiredAt == Instant.zero + .seconds(8) && record[0].endedAt == Instant.zero + .seconds(10))
        #expect(h.core.killedForViolation)
    }

    @Test func aFailedTaskIsKeptForTheExitStatusAndTheChildIsFrozenAgain() {
        var h = H.suspended()
        h.request(H.schedule("sync"))
        #expect(h.request(.taskCompleted(id: Self.sync, success: false)).contains(.freeze))
        #expect(h.core.failedTask == Self.sync && h.core.lifecycle.scheduledTasks.first?.outcome == .failure)
        #expect(!h.core.killedForViolation)
    }

    @Test func completionOfATaskNotRunningIsUnknownAndEndCompletesIt() {
        var h = H.suspended()
        #expect(h.request(.taskCompleted(id: Self.sync, success: true))
            == [.send(.error(RequestError(code: .unknownID, request: "task-completed sync success")))])
        h.request(H.schedule("sync"))
        h.take()
        #expect(h.request(.end(id: Self.sync)).contains(.freeze), "end ID completes it as success")
        #expect(h.core.lifecycle.scheduledTasks.first?.outcome == .success)
    }

    @Test func requestsAreBoundedReplacedByIDAndCancelled() {
        var h = H.suspended()
        for number in 0..<ScheduledWork.requestLimit { h.request(H.schedule("t\(number)", earliest: 60)) }
        #expect(h.take() == [])
        #expect(h.request(H.schedule("one-more", earliest: 60))
            == [.send(.error(RequestError(code: .tooManySchedules, request: "schedule one-more refresh earliest=60000ms")))])
        #expect(h.request(H.schedule("t0", .processing, earliest: 120)) == [], "a second request of an ID replaces it")
        #expect(h.core.work.pending[id("t0")]?.kind == .processing
            && h.core.work.pending[id("t0")]?.dueAt == Instant.zero + .seconds(120))
        #expect(h.request(.cancel(id: id("t1"))) == [])
        #expect(h.request(.cancel(id: id("t1")))
            == [.send(.error(RequestError(code: .unknownID, request: "cancel t1")))])
        #expect(h.core.work.pending.count == ScheduledWork.requestLimit - 1)
    }

    @Test func scheduledIDsShareTheTaskIDNamespace() {
        var h = H()
        h.handle(.launched)
        h.request(.hello)
        h.request(.begin(id: Self.sync, name: nil))
        #expect(h.request(H.schedule("sync"))
            == [.send(.error(RequestError(code: .duplicateID, request: "schedule sync refresh")))])
        h.request(H.schedule("later", earliest: 60))
        #expect(h.request(.begin(id: id("later"), name: nil))
            == [.send(.error(RequestError(code: .duplicateID, request: "begin later")))])
    }

    @Test func aReclaimedChildIsLaunchedForItsDueTaskAndKeepsItsRequestsAcrossRuns() {
        var h = H.suspended()
        h.request(H.schedule("sync", earliest: 60))
        #expect(h.handle(.reclaim).contains(.killTree))
        h.handle(.exited(.signaled(9), treeEmpty: true))
        h.handle(.runOver)
        #expect(h.state == .notRunning && h.core.status.nextDeadline == Instant.zero + .seconds(60))
        h.take()
        h.advance(to: 60)
        #expect(h.take() == [.startRun])
        h.now = h.now + .milliseconds(100)
        #expect(h.handle(.launched) == [
            .note("launched for scheduled task sync"), .send(.didFinishLaunching(.background, reclaimed: true)),
            .send(.didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000)),
            .send(.task(id: Self.sync, kind: .refresh, limitMS: 30000)),
            .note("scheduled task sync (refresh) started: 30s"), .stateChanged(.background),
        ])
        #expect(h.core.runCount == 2)
    }

    @Test func aChildNeverStartedIsLaunchedForAConfiguredTask() {
        let every = ConfiguredSchedule(id: Self.sync, kind: .refresh, every: .seconds(900))
        var h = H(autostart: false, schedules: [every])
        #expect(h.core.status.nextDeadline == Instant.zero + .seconds(900))
        h.advance(to: 900)
        #expect(h.take() == [.startRun])
        h.handle(.launched)
        #expect(h.sent.contains(.task(id: Self.sync, kind: .refresh, limitMS: 30000)))
    }

    @Test func aConfiguredScheduleIsArmedAgainAfterEachRunOfIt() {
        let every = ConfiguredSchedule(id: Self.sync, kind: .refresh, every: .seconds(900), requires: [.idle])
        var h = H.suspended(schedules: [every])
        h.advance(to: 900)
        #expect(h.state == .background)
        h.advance(to: 910)
        h.request(.taskCompleted(id: Self.sync, success: true))
        #expect(h.core.work.pending[Self.sync]?.dueAt == Instant.zero + .seconds(1810), "every 900 s after the run")
        #expect(h.request(.cancel(id: Self.sync))
            == [.send(.error(RequestError(code: .unknownID, request: "cancel sync")))], "not the child's to cancel")
        #expect(h.request(H.schedule("sync")).count == 1, "nor to replace")
    }

    @Test func tasksThatFellDueWhileTheSupervisorDidNotRunRunOnceEach() {
        var h = H.suspended()
        h.request(H.schedule("a", earliest: 10))
        h.request(H.schedule("b", earliest: 20))
        h.now = Instant.zero + .seconds(100)
        h.handle(.supervisorGap(.seconds(100)))
        h.handle(.tick)
        let started = h.sent.compactMap { if case .task(let id, _, _) = $0 { id } else { nil } }
        #expect(started == [id("a")], "the earliest due first, one at a time")
        h.take()
        h.request(.taskCompleted(id: id("a"), success: true))
        h.handle(.freezeVerified)
        #expect(h.sent.contains(.task(id: id("b"), kind: .refresh, limitMS: 30000)), "then the next")
        #expect(h.core.work.pending.isEmpty)
    }

    @Test func theTaskTimesAreOptionsLongerThanTheExpiryWarning() {
        var settings = LifecycleSettings()
        settings.refreshTime = .seconds(5)
        #expect(settings.problem == "--refresh-time (5s) must be longer than --expiry-warning (5s)")
        settings.refreshTime = .seconds(6)
        settings.processingTime = .seconds(1)
        #expect(settings.problem == "--processing-time (1s) must be longer than --expiry-warning (5s)")
    }
}

/// `run-task`: a pending task now, whatever its due time and conditions.
@Suite(.timeLimit(.minutes(5))) struct RunTaskCommandTests {
    private typealias H = ScheduleHarness

    @Test func runTaskStartsAPendingTaskNowWhateverItsConditions() {
        var h = H.suspended()
        h.handle(.conditions([]))
        h.request(H.schedule("sync", earliest: 3600, requires: [.network]))
        #expect(h.handle(.runTask(id("sync"))).contains(.send(.task(id: id("sync"), kind: .refresh, limitMS: 30000))))
        #expect(h.handle(.runTask(id("sync"))) == [.refuse("cannot run task sync: it is running")])
        #expect(h.handle(.runTask(id("other")))
            == [.refuse("cannot run task other: no scheduled task of that ID is pending")])
    }

    @Test func runTaskOfAChildInTheForegroundWaitsForItsNextBackgroundEntry() {
        var h = H()
        h.handle(.launched)
        h.request(.hello)
        h.request(H.schedule("sync", earliest: 3600))
        h.take()
        #expect(h.handle(.runTask(id("sync"))) == [])
        #expect(h.handle(.background).contains(.send(.task(id: id("sync"), kind: .refresh, limitMS: 30000))))
    }
}

/// What CI reports of scheduled tasks: a failed one fails the child, an expired one is a violation.
@Suite(.timeLimit(.minutes(5))) struct ScheduledTaskVerdictTests {
    private typealias H = ScheduleHarness

    @Test func aTaskCompletedWithFailureFailsTheChildAndASuccessDoesNot() {
        var h = H.suspended()
        h.request(H.schedule("ok"))
        h.request(.taskCompleted(id: id("ok"), success: true))
        h.handle(.freezeVerified)
        #expect(ChildVerdict(runs: h.core.runs, failedWaits: [], end: h.now).passed)
        h.request(H.schedule("bad"))
        h.request(.taskCompleted(id: id("bad"), success: false))
        let verdict = ChildVerdict(runs: h.core.runs, failedWaits: [], end: h.now)
        #expect(verdict.failures.count == 1)
        guard case .task(let task)? = verdict.failures.first else {
            Issue.record("\(verdict.failures)")
            return
        }
        #expect(task.id == id("bad") && task.outcome == .failure)
    }

    @Test func aTaskHeldPastItsTimeFailsAsItsExpiryViolation() {
        var h = H.suspended { $0.refreshTime = .seconds(10) }
        h.request(H.schedule("held"))
        h.advance(by: 10)
        h.handle(.exited(.signaled(9), treeEmpty: true))
        let verdict = ChildVerdict(runs: h.core.runs, failedWaits: [], end: h.now)
        guard case .violation(let violation)? = verdict.failures.first, verdict.failures.count == 1 else {
            Issue.record("\(verdict.failures)")
            return
        }
        #expect(violation.kind == .expiry && violation.tasks.map(\.id) == [id("held")])
    }
}

/// A launch for a task that fails before the task's entry begins loses no task.
@Suite(.timeLimit(.minutes(5))) struct TaskLaunchFailureTests {
    private typealias H = ScheduleHarness

    @Test func aLaunchThatTimesOutWaitingForHelloPutsTheTaskBack() {
        let every = ConfiguredSchedule(id: id("sync"), kind: .refresh, every: .seconds(60))
        var h = H(autostart: false, schedules: [every]) { $0.aware = true; $0.launchTimeout = .seconds(5) }
        h.advance(to: 60)
        #expect(h.take() == [.startRun])
        h.handle(.launched)
        #expect(h.core.work.pending.isEmpty, "taken by the launch")
        h.advance(to: 65)
        #expect(h.state == .terminating, "killed for the launch violation")
        h.handle(.exited(.signaled(9), treeEmpty: true))
        #expect(h.core.work.pending[id("sync")]?.dueAt == Instant.zero + .seconds(60), "pending again, as it was")
        #expect(h.core.status.nextDeadline == nil, "an exited child waits for its next run")
    }

    @Test func aLaunchThatCannotExecPutsTheTaskBack() {
        var h = H(autostart: false)
        h.core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false, autostart: false,
                           schedules: [ConfiguredSchedule(id: id("sync"), kind: .refresh, every: .seconds(1))])
        h.advance(to: 1)
        h.handle(.spawnFailed(status: 127))
        #expect(h.core.work.pending[id("sync")] != nil)
    }

    @Test func anAwareChildLaunchedForATaskStartsItsTimeAtItsHello() {
        var h = H(autostart: false, schedules: [ConfiguredSchedule(id: id("sync"), kind: .refresh, every: .seconds(60))]) {
            $0.aware = true
        }
        h.advance(to: 60)
        h.handle(.launched)
        #expect(h.state == .launching && h.sent.contains(.task(id: id("sync"), kind: .refresh, limitMS: 30000)))
        h.now = Instant.zero + .seconds(62)
        h.request(.hello)
        #expect(h.state == .background)
        #expect(h.core.lifecycle.runningTask?.startedAt == Instant.zero + .seconds(62))
    }
}

/// `run-task` of a child whose process is gone.
@Suite(.timeLimit(.minutes(5))) struct RunTaskWithoutAProcessTests {
    private typealias H = ScheduleHarness

    @Test func runTaskLaunchesAnExitedChildForTheTaskAsAnEventDoes() {
        var h = H()
        h.handle(.launched)
        h.request(.hello)
        h.request(H.schedule("sync", earliest: 3600))
        h.handle(.exited(.exited(0), treeEmpty: true))
        h.handle(.runOver)
        h.take()
        #expect(h.core.status.nextDeadline == nil, "an exited child's task waits for its next run")
        #expect(h.handle(.runTask(id("sync"))) == [.startRun])
        h.handle(.launched)
        #expect(h.sent.contains(.task(id: id("sync"), kind: .refresh, limitMS: 30000)))
        #expect(h.core.work.pending.isEmpty)
    }

    @Test func runTaskOfAChildToldToTerminateIsRefused() {
        var h = H()
        h.handle(.launched)
        h.request(H.schedule("sync", earliest: 3600))
        h.handle(.terminate(escalate: false))
        h.handle(.exited(.exited(0), treeEmpty: true))
        #expect(h.handle(.runTask(id("sync"))) == [.refuse("cannot run task sync: the child was told to terminate")])
    }
}
