import Testing
@testable import SuperviseLifecycle

/// When the run ends, and what keeps it up (docs/cli.md, "End of input, and the end of the run").
@Suite(.timeLimit(.minutes(5))) struct RunEndTests {
    @Test func theRunEndsOnceEveryChildExitedAndIsOverOnceEachRunIsWrappedUp() {
        var run = RunHarness(children: 2)
        #expect(!run.isEnding)
        run.advance(by: 3)
        run.exit(0)
        #expect(!run.isEnding, "the other child still runs")
        run.exit(1)
        #expect(run.isEnding && !run.isOver, "ending, but the runs' pipes are still open")
        run.wrapUp(0)
        #expect(!run.isOver)
        run.wrapUp(1)
        #expect(run.isOver)
    }

    @Test func aRestartWaitingOutItsBackOffKeepsTheRunUp() {
        var run = RunHarness(children: 1, restart: RestartRules(policy: .always, delay: .seconds(2)))
        run.exit(0)
        run.wrapUp(0)
        #expect(run.cores[0].status.restartPending && !run.isEnding)
        run.advance(by: 2)
        #expect(run.cores[0].status.state == .active && run.cores[0].runCount == 2, "restarted at the back-off's end")
        run.feed(0, .terminate(escalate: false))
        run.exit(0, .signaled(15))
        run.wrapUp(0)
        #expect(run.isOver, "told to terminate, it is not restarted")
    }

    @Test func aNotRunningChildKeepsTheRunUpOnlyWhileCommandsMayCome() {
        var run = RunHarness(children: 1, autostart: false)
        run.sources = CommandSources(socketOpen: false, stdinMayRunMore: true)
        #expect(run.cores[0].status.state == .notRunning && !run.isEnding)
        run.sources.stdinMayRunMore = false
        #expect(run.isEnding, "stdin ended: nothing can launch it any more")
        run.sources.socketOpen = true
        #expect(!run.isEnding, "a control client can still send it an event")
        run.feed(0, .terminate(escalate: false))
        #expect(run.isEnding, "told to terminate: no event launches it")
    }

    @Test func keepRunningKeepsAnExitedChildUpWhileCommandsMayCome() {
        var run = RunHarness(children: 1, settings: RunCore.Settings(keepRunning: true))
        run.sources.socketOpen = true
        run.endEveryChild([0])
        #expect(!run.isEnding && run.run.keepsRunUp(run.children[0], run.sources))
        run.sources.socketOpen = false
        #expect(run.isOver)

        var plain = RunHarness(children: 1)
        plain.sources.socketOpen = true
        plain.endEveryChild([0])
        #expect(plain.isOver, "without --keep-running an exited child does not keep the run up")
    }

    @Test func anotherSourceCanLaunchOnlyThroughAnOpenSocketBeforeTheRunEnds() {
        var run = RunHarness(children: 1)
        #expect(!run.run.commandsCanLaunch(run.children, run.sources), "no socket")
        run.sources.socketOpen = true
        #expect(run.run.commandsCanLaunch(run.children, run.sources))
        run.endEveryChild([0])
        #expect(run.isEnding && !run.run.commandsCanLaunch(run.children, run.sources), "the run is ending")
    }
}

/// What the shell asks of the run's rules at each turn of its loop.
@Suite(.timeLimit(.minutes(5))) struct RunTurnTests {
    @Test func eachFinishedRunNotYetWrappedUpIsClosedThenARequestedRunStarted() {
        var run = RunHarness(children: 3)
        #expect(run.run.finishedRuns(run.children).isEmpty)
        run.exit(0)
        run.exit(2)
        run.wrapUp(2)
        #expect(run.run.finishedRuns(run.children) == [.wrapUp(child: 0), .startRequestedRun(child: 0)],
                "the one wrapped up already is left alone, the running one too")
    }

    @Test func aChildIsDoneOnceFinishedWrappedUpAndNotToBeRestarted() {
        var run = RunHarness(children: 1, restart: RestartRules(policy: .always, delay: .seconds(1)))
        run.exit(0)
        #expect(!run.children[0].isDone, "its run is not wrapped up")
        run.wrapUp(0)
        #expect(!run.children[0].isDone, "a restart is pending")
        run.feed(0, .terminate(escalate: false))
        #expect(run.children[0].isDone)
    }

    @Test func aChildMayRunAgainWhileARestartIsPendingOrItKeepsTheRunUp() {
        var run = RunHarness(children: 2, restart: RestartRules(policy: .onFailure, delay: .seconds(1)))
        run.endEveryChild([1, 0])
        #expect(run.run.mayRunAgain(run.children[0], run.sources), "its restart is pending")
        #expect(!run.run.mayRunAgain(run.children[1], run.sources))
        var keep = RunHarness(children: 1, settings: RunCore.Settings(keepRunning: true))
        keep.sources.socketOpen = true
        keep.endEveryChild([0])
        #expect(keep.run.mayRunAgain(keep.children[0], keep.sources), "--keep-running, and a client may send an event")
    }
}
