import Testing
@testable import SuperviseLifecycle

@Suite(.timeLimit(.minutes(5))) struct RestartRulesTests {
    private func spec(_ policy: RestartPolicy, afterViolation: Bool = false) -> RestartRules {
        RestartRules(policy: policy, afterViolation: afterViolation)
    }

    @Test func neverRestartsNothing() {
        for status: Int32 in [0, 1, 137] {
            #expect(!spec(.never).shouldRestart(status: status, killedForViolation: false, stoppedBySupervisor: false))
        }
    }

    @Test func onFailureRestartsOnlyANonZeroStatus() {
        #expect(!spec(.onFailure).shouldRestart(status: 0, killedForViolation: false, stoppedBySupervisor: false))
        #expect(spec(.onFailure).shouldRestart(status: 1, killedForViolation: false, stoppedBySupervisor: false))
        #expect(spec(.onFailure).shouldRestart(status: 139, killedForViolation: false, stoppedBySupervisor: false))
    }

    @Test func alwaysRestartsASuccessToo() {
        #expect(spec(.always).shouldRestart(status: 0, killedForViolation: false, stoppedBySupervisor: false))
        #expect(spec(.always).shouldRestart(status: 2, killedForViolation: false, stoppedBySupervisor: false))
    }

    @Test func aViolationIsRestartedOnlyWhenAllowed() {
        for policy in [RestartPolicy.onFailure, .always] {
            #expect(!spec(policy).shouldRestart(status: 137, killedForViolation: true, stoppedBySupervisor: false))
            #expect(spec(policy, afterViolation: true)
                .shouldRestart(status: 137, killedForViolation: true, stoppedBySupervisor: false))
        }
        #expect(!spec(.never, afterViolation: true)
            .shouldRestart(status: 137, killedForViolation: true, stoppedBySupervisor: false))
    }

    @Test func aChildTheSupervisorStoppedIsNeverRestarted() {
        #expect(!spec(.always, afterViolation: true)
            .shouldRestart(status: 143, killedForViolation: false, stoppedBySupervisor: true))
    }

    @Test func theDelayDoublesForQuickRestartsUpToTheMaximum() {
        var backoff = RestartBackoff(RestartRules())
        let delays = (0..<8).map { _ in backoff.delay(afterRunOf: .seconds(1)) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func aStableRunResetsTheDelay() {
        var backoff = RestartBackoff(RestartRules(delay: .milliseconds(500), delayMax: .seconds(4)))
        #expect(backoff.delay(afterRunOf: .zero) == .milliseconds(500))
        #expect(backoff.delay(afterRunOf: .seconds(9)) == .seconds(1))
        #expect(backoff.delay(afterRunOf: RestartBackoff.stableRun) == .milliseconds(500))
        #expect(backoff.delay(afterRunOf: .milliseconds(100)) == .seconds(1))
    }

    @Test func aZeroDelayStaysZero() {
        var backoff = RestartBackoff(RestartRules(delay: .zero))
        #expect(backoff.delay(afterRunOf: .zero) == .zero && backoff.delay(afterRunOf: .zero) == .zero)
    }
}
