import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The exit-status precedence: 125, the violation status, 123, the first non-zero child status, 1 for a
/// failed scheduled task, 0.
@Suite(.timeLimit(.minutes(5))) struct ExitStatusPolicyTests {
    @Test func eachCauseBeatsTheOnesAfterIt() {
        var outcome = RunOutcome()
        #expect(outcome.exitStatus() == 0)
        for (child, status) in [("a", 0), ("b", 143), ("c", 3)] as [(String, Int32)] { outcome.count(status, of: child) }
        #expect(outcome.exitStatus() == 143)
        outcome.scriptStepFailed = true
        #expect(outcome.exitStatus() == 123)
        outcome.violationKill = true
        #expect(outcome.exitStatus(violationStatus: 99) == 99)
        outcome.supervisorFailed = true
        #expect(outcome.exitStatus(violationStatus: 99) == 125)
    }
}

/// A scheduled task completed with `failure`: 1, below every child's non-zero status.
@Suite(.timeLimit(.minutes(5))) struct FailedTaskStatusTests {
    @Test func aFailedTaskMakesTheRunFailOnlyWhenNothingWeighsMore() {
        var outcome = RunOutcome()
        outcome.count(0, of: "a")
        outcome.failedTask = RunOutcome.FailedTask(child: "a", task: "sync")
        #expect(outcome.rule == .taskFailed(child: "a", task: "sync") && outcome.exitStatus() == 1)
        outcome.count(3, of: "b")
        #expect(outcome.rule == .childStatus(3, child: "b") && outcome.exitStatus() == 3)
        outcome.scriptStepFailed = true
        #expect(outcome.exitStatus() == 123)
    }

    @Test func theRunCoreTakesTheFirstFailedTaskOfTheChildrenAtTheEnd() {
        var run = RunCore(settings: RunCore.Settings())
        let status = ChildStatus(state: .exited, isFinished: true, nextDeadline: nil, restartPending: false,
                                 toldToTerminate: false)
        let children = [
            RunChild(name: "a", status: status, wrappedUp: true, pid: 1, mainProcessAlive: false, killedForViolation: false),
            RunChild(name: "b", status: status, wrappedUp: true, pid: 2, mainProcessAlive: false, killedForViolation: false,
                     failedTask: TaskID("sync")),
        ]
        _ = run.handle(.ended(children))
        #expect(run.exitStatus == 1 && run.outcome.rule == .taskFailed(child: "b", task: "sync"))
    }
}

/// Which rule of the precedence applied, for the summary.
@Suite(.timeLimit(.minutes(5))) struct ExitRuleTests {
    @Test func theRuleIsTheFirstThatApplies() {
        var outcome = RunOutcome()
        #expect(outcome.rule == .allZero)
        for (child, status) in [("a", 0), ("b", 143), ("c", 3)] as [(String, Int32)] { outcome.count(status, of: child) }
        #expect(outcome.rule == .childStatus(143, child: "b"))
        outcome.scriptStepFailed = true
        #expect(outcome.rule == .scriptStepFailed)
        outcome.violationKill = true
        #expect(outcome.rule == .violationKill)
        outcome.supervisorFailed = true
        #expect(outcome.rule == .supervisorFailed)
    }
}
