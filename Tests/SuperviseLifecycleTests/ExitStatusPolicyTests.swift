import Testing
@testable import SuperviseLifecycle

/// The exit-status precedence: 125, the violation status, 123, the first non-zero child status, 0.
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
