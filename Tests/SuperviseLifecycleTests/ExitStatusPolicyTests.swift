import Testing
@testable import SuperviseLifecycle

/// The exit-status precedence: 125, the violation status, 123, the first non-zero child status, 0.
@Suite(.timeLimit(.minutes(5))) struct ExitStatusPolicyTests {
    @Test func eachCauseBeatsTheOnesAfterIt() {
        var outcome = RunOutcome()
        #expect(outcome.exitStatus() == 0)
        outcome.childStatuses = [0, 143, 3]
        #expect(outcome.exitStatus() == 143)
        outcome.scriptStepFailed = true
        #expect(outcome.exitStatus() == 123)
        outcome.violationKill = true
        #expect(outcome.exitStatus(violationStatus: 99) == 99)
        outcome.supervisorFailed = true
        #expect(outcome.exitStatus(violationStatus: 99) == 125)
    }
}
