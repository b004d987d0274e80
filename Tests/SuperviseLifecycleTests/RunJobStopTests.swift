import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// A stop of the job (Ctrl-Z) and its `fg` (docs/cli.md, "Terminals and shells"): the children
/// that run stop with the supervisor, and `fg` continues those and no other.
@Suite(.timeLimit(.minutes(5))) struct RunJobStopTests {
    /// Four children: 0 active, 1 in the background, 2 suspended, 3 exited with its run over.
    private func mixedRun() -> RunHarness {
        var run = RunHarness(children: 4)
        run.feed(1, .background)
        run.feed(2, .background)
        run.feed(2, .request(.done(seq: 1)))
        run.feed(2, .freezeVerified)
        run.exit(3)
        run.wrapUp(3)
        #expect(run.cores.map(\.status.state) == [.active, .background, .suspended, .exited])
        return run
    }

    @Test func onlyChildrenThatRunStopWithTheJob() {
        var run = mixedRun()
        let actions = run.handle(.jobStopping(signal: 20, name: "SIGTSTP (20)", cause: "SIGTSTP (20)", children: run.children))
        #expect(actions == [
            .log(.notice, "SIGTSTP (20): stopping the job: 2 running children and supervise; fg continues them"),
            .send(20, .tree, child: 0, note: "stopped with the job: sent SIGTSTP (20)"),
            .send(20, .tree, child: 1, note: "stopped with the job: sent SIGTSTP (20)"),
        ], "the suspended child stays frozen, the exited one has nothing to stop")
    }

    @Test func fgContinuesOnlyWhatTheStopStoppedAndOnlyOnce() {
        var run = mixedRun()
        #expect(run.handle(.jobContinued) == [], "nothing was stopped with the job")
        run.handle(.jobStopping(signal: 20, name: "SIGTSTP (20)", cause: "web stopped by SIGTSTP (20)", children: run.children))
        // While the supervisor was stopped the suspended child was thawed from outside: still not the job's.
        run.feed(2, .thawedFromOutside(seen: "thawed"))
        #expect(run.handle(.jobContinued) == [
            .send(18, .tree, child: 0, note: "continued with the job: sent SIGCONT"),
            .send(18, .tree, child: 1, note: "continued with the job: sent SIGCONT"),
        ])
        #expect(run.handle(.jobContinued) == [], "a later continue finds nothing of the job's left")
    }

    @Test func withNothingRunningOnlyTheSupervisorStops() {
        var run = RunHarness(children: 1)
        run.exit(0)
        #expect(run.handle(.jobStopping(signal: 21, name: "SIGTTIN (21)", cause: "SIGTTIN (21)", children: run.children))
            == [.log(.notice, "SIGTTIN (21): stopping the job: 0 running children and supervise; fg continues them")])
    }

    /// Only running children stop with the job, so `fg` continues only those: a suspended child
    /// (or one being frozen) stays as it is.
    @Test func theStatesThatStopWithTheJob() {
        let stopping = ChildState.allCases.filter(RunCore.stopsWithJob)
        #expect(Set(stopping) == [.launching, .active, .background, .terminating])
    }
}

/// The one-line hint on giving a child the terminal (docs/cli.md, "Terminals and shells").
@Suite(.timeLimit(.minutes(5))) struct RunHintTests {
    @Test func theFirstHintOfTheRunIsLoggedAndNoOther() {
        var run = RunHarness(children: 2)
        #expect(run.handle(.hint("give it the terminal", child: 1)) == [.childLog(child: 1, .notice, "give it the terminal")])
        #expect(run.handle(.hint("give it the terminal", child: 1)) == [])
        #expect(run.handle(.hint("another hint", child: 0)) == [], "one hint a run, whichever child")
    }
}
