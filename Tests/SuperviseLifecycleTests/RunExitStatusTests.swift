import Testing
import SuperviseProtocol
@testable import SuperviseLifecycle

/// Every fact behind the supervisor's exit status comes to the run core as an input; its
/// precedence is ``RunOutcome``'s (``ExitStatusPolicyTests``).
@Suite(.timeLimit(.minutes(5))) struct RunExitStatusTests {
    @Test func theFirstChildToExitNonZeroGivesTheStatusInTheOrderTheyExited() {
        var run = RunHarness(children: 3)
        run.advance(by: 1)
        run.exit(2, .exited(0))
        run.advance(by: 1)
        run.exit(1, .signaled(15))
        run.exit(0, .exited(3))
        #expect(run.run.exitStatus == 143)
        #expect(run.run.outcome.rule == .childStatus(143, child: "child1"))
    }

    @Test func aCommandThatCannotBeRunIsTheChildsFailureAndASpawnTheSupervisorCouldNotMakeIs125() {
        var run = RunHarness(children: 2, autostart: false)
        let notFound = run.handle(.spawnFailed(child: 0, name: "child0", commandStatus: 127, message: "./worker: not found"))
        #expect(notFound == [.log(.error, "./worker: not found"), .feed(child: 0, .spawnFailed(status: 127))])
        #expect(run.run.exitStatus == 127 && run.cores[0].status.isFinished)
        let fork = run.handle(.spawnFailed(child: 1, name: "child1", commandStatus: nil, message: "fork: EAGAIN"))
        #expect(fork == [.log(.error, "supervise failed: fork: EAGAIN"), .feed(child: 1, .spawnFailed(status: 125))])
        #expect(run.run.exitStatus == 125 && run.run.outcome.rule == .supervisorFailed)
    }

    @Test func aChildWithoutAFreezerUnitOrAResultFileNotWrittenIsTheSupervisorsFailure() {
        var unit = RunHarness(children: 1)
        #expect(unit.handle(.unitFailed(name: "db", message: "cannot make its cgroup")) == [.log(.error, "db: cannot make its cgroup")])
        unit.endEveryChild([0])
        #expect(unit.run.exitStatus == 125)

        var results = RunHarness(children: 1)
        results.endEveryChild([3])
        #expect(results.run.exitStatus == 3 && results.run.exitStatusIfAResultFails == 125)
        results.handle(.resultFileFailed)
        #expect(results.run.exitStatus == 125)
    }

    @Test func noFreezerIsItsOwnStatusWhateverElse() {
        var run = RunHarness(children: 0, settings: RunCore.Settings(freezersUnavailableStatus: 2))
        #expect(run.handle(.freezersUnavailable(message: "no cgroup v2")) == [.log(.error, "no cgroup v2")])
        #expect(run.run.exitStatus == 2 && run.run.exitStatusIfAResultFails == 2)
    }

    @Test func aChildKilledForAViolationInAnyRunGivesTheViolationStatusAtTheEnd() {
        var run = RunHarness(children: 2, settings: RunCore.Settings(violationStatus: 99),
                             restart: RestartRules(policy: .always, delay: .seconds(1), afterViolation: true)) {
            $0.window = .seconds(2)
            $0.aware = true
        }
        run.feed(0, .request(.hello))
        run.feed(0, .background)
        run.advance(by: 2)
        #expect(run.cores[0].status.state == .terminating, "killed at the window's end")
        run.exit(0, .signaled(9))
        run.wrapUp(0)
        run.advance(by: 1)
        #expect(run.cores[0].runCount == 2, "restarted after the violation")
        run.feed(0, .terminate(escalate: false))
        run.feed(1, .terminate(escalate: false))
        run.endEveryChild([0, 0])
        #expect(run.run.exitStatus == 137, "not decided before the run ends")
        run.handle(.ended(run.children))
        #expect(run.run.exitStatus == 99 && run.run.outcome.rule == .violationKill)
    }

    @Test func aFailedWaitOnStdinFailsTheRunAndIsRecordedAndRefused() {
        var run = RunHarness(children: 1)
        let actions = run.handle(.waitFailed(text: "wait suspended child0 1s", reason: "timed out: child0 is active",
                                             children: ["child0"], from: .stdin(line: 4, mistakes: .logged)))
        #expect(actions == [.stepFailed(.wait, line: 4, text: "wait suspended child0 1s", reason: "timed out: child0 is active",
                                        children: ["child0"]),
                            .refuse("timed out: child0 is active")])
        run.endEveryChild([0])
        #expect(run.run.exitStatus == 123 && run.run.outcome.rule == .scriptStepFailed)
    }

    /// A control client's `wait` is its own: its failure is that client's answer, and the run's
    /// exit status is as if it never waited.
    @Test func aFailedWaitOfAControlClientFailsOnlyThatClient() {
        var run = RunHarness(children: 1)
        let actions = run.handle(.waitFailed(text: "wait suspended child0 1s", reason: "timed out: child0 is active",
                                             children: ["child0"], from: .client))
        #expect(actions == [.failClientWait(reason: "timed out: child0 is active")])
        run.endEveryChild([0])
        #expect(run.run.exitStatus == 0 && !run.run.outcome.scriptStepFailed)
    }
}

/// A stdin command that can't be run as written, from a pipe or a file: the run ends (123).
@Suite(.timeLimit(.minutes(5))) struct ScriptedMistakeTests {
    @Test func aScriptedMistakeStopsTheCommandsAndTerminatesEveryChildGracefully() {
        var run = RunHarness(children: 2)
        let actions = run.handle(.commandRejected(text: "frobnicate", .unrunnable(reason: "unknown command"),
                                                  from: .stdin(line: 2, mistakes: .endTheRun)))
        #expect(actions == [
            .refuseOnStdin(line: 2, text: "frobnicate", reason: "unknown command"),
            .stopCommands,
            .stepFailed(.command, line: 2, text: "frobnicate", reason: "unknown command", children: []),
            .log(.notice, "stdin line 2 failed and stdin is not a terminal: terminating every child (--keep-going goes on)"),
            .feedEveryChild(.terminate(escalate: false)),
        ])
        #expect(run.cores.allSatisfy { $0.status.state == .terminating && $0.status.toldToTerminate })
        run.endEveryChild([0, 0])
        #expect(run.run.exitStatus == 123)
    }

    @Test func onlyTheFirstMistakeEndsTheRun() {
        var run = RunHarness(children: 1)
        run.handle(.commandRejected(text: "x", .unrunnable(reason: "unknown command"), from: .stdin(line: 1, mistakes: .endTheRun)))
        #expect(run.handle(.commandRejected(text: "y", .unrunnable(reason: "unknown command"), from: .stdin(line: 2, mistakes: .endTheRun)))
            == [.refuseOnStdin(line: 2, text: "y", reason: "unknown command")], "only its line is logged")
    }

    @Test func onATerminalOrWithKeepGoingAMistakeIsOnlyTheLineAlreadyLogged() {
        var run = RunHarness(children: 1)
        #expect(run.handle(.commandRejected(text: "x", .unrunnable(reason: "unknown command"), from: .stdin(line: 1, mistakes: .logged)))
            == [.refuseOnStdin(line: 1, text: "x", reason: "unknown command")])
        #expect(run.cores[0].status.state == .active)
        run.endEveryChild([0])
        #expect(run.run.exitStatus == 0)
    }
}
