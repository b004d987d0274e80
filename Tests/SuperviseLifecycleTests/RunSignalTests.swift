import Testing
@testable import SuperviseLifecycle

/// What a signal sent to the supervisor does to the run (docs/cli.md, "Signals").
@Suite(.timeLimit(.minutes(5))) struct RunSignalTests {
    private func signal(_ run: inout RunHarness, _ order: SignalOrder, _ number: Int32 = 15,
                        _ name: String = "SIGTERM (15)", routine: Bool = false) -> [RunAction] {
        run.handle(.signal(number, name: name, order: order, routine: routine, children: run.children))
    }

    @Test func aFirstTerminatingSignalTerminatesGracefullyAndASecondKills() {
        var run = RunHarness(children: 2)
        #expect(signal(&run, .terminate) == [.log(.notice, "SIGTERM (15): terminating every child"),
                                              .feedEveryChild(.terminate(escalate: false))])
        #expect(run.cores.allSatisfy { $0.status.state == .terminating })
        run.advance(by: 1)
        let second = run.run.handle(.signal(2, name: "SIGINT (2)", order: .terminate, routine: false, children: run.children))
        #expect(second == [.log(.notice, "SIGINT (2): killing every child"), .feedEveryChild(.terminate(escalate: true))])
        #expect(run.feed(0, .terminate(escalate: true)).actions.contains(.killTree), "escalated, the core kills")
        #expect(signal(&run, .terminate).last == .feedEveryChild(.terminate(escalate: true)), "every one after the first kills")
    }

    @Test func aSignalTheTableSaysNothingOfIsOnlyLogged() {
        var run = RunHarness(children: 2)
        let actions = run.handle(.signal(31, name: "SIGSYS (31)", order: nil, routine: false, children: run.children))
        #expect(actions == [.log(.notice, "SIGSYS (31): ignored")])
        #expect(run.cores.allSatisfy { $0.status.state == .active }, "no child was touched")
    }

    @Test func backgroundAndForegroundReachEveryChild() {
        var run = RunHarness(children: 2)
        #expect(signal(&run, .background, 10, "SIGUSR1 (10)")
            == [.log(.info, "SIGUSR1 (10): moving every child to the background"), .feedEveryChild(.background)])
        #expect(run.cores.allSatisfy { $0.status.state != .active }, "each child left the foreground")
        #expect(signal(&run, .foreground, 12, "SIGUSR2 (12)")
            == [.log(.info, "SIGUSR2 (12): bringing every child to the foreground"), .feedEveryChild(.foreground)])
    }

    @Test func aForwardReachesEveryChildWithProcessesWhileItsTargetLives() {
        var run = RunHarness(children: 3)
        run.exit(1, .exited(0), treeEmpty: false)
        run.exit(2)
        run.wrapUp(2)
        let actions = signal(&run, .forward(.main), 1, "SIGHUP (1)")
        #expect(actions == [
            .log(.notice, "SIGHUP (1): forwarding it to every child's main process"),
            .send(1, .process(run.pids[0]), child: 0, note: "forwarded SIGHUP (1) to its main process"),
            .note(child: 1, "SIGHUP (1) not forwarded: its main process has exited"),
        ], "the child whose tree is gone is left out")
        let group = signal(&run, .forward(.group), 1, "SIGHUP (1)")
        #expect(group.dropFirst().first == .send(1, .processGroup(run.pids[0]), child: 0,
                                                 note: "forwarded SIGHUP (1) to its process group"))
        let tree = signal(&run, .forward(.tree), 1, "SIGHUP (1)")
        #expect(tree.dropFirst() == [.send(1, .tree, child: 0, note: "forwarded SIGHUP (1) to its tree"),
                                     .send(1, .tree, child: 1, note: "forwarded SIGHUP (1) to its tree")],
                "the tree is reached while any of it runs")
    }

    @Test func aRoutineSignalIsForwardedWithoutALineAtTheDefaultLevel() {
        var run = RunHarness(children: 1)
        #expect(signal(&run, .forward(.main), 28, "SIGWINCH (28)", routine: true).first
            == .log(.debug, "SIGWINCH (28): forwarding it to every child's main process"))
    }

    @Test func aStopIsTheJobsAndAnIgnoredSignalIsOnlyLogged() {
        var run = RunHarness(children: 1)
        #expect(signal(&run, .stop, 20, "SIGTSTP (20)") == [.stopJob(signal: 20)])
        #expect(signal(&run, .ignore, 18, "SIGCONT (18)") == [.log(.notice, "SIGCONT (18): ignored")])
        #expect(run.cores[0].status.state == .active)
    }
}

/// `signal NAME SIG [main|group|tree]` (docs/cli.md, "Who gets a forwarded signal").
@Suite(.timeLimit(.minutes(5))) struct SignalCommandTests {
    @Test func aChildWithNoProcessIsRefused() {
        let run = RunHarness(children: 1, autostart: false)
        #expect(run.run.signalCommand(1, name: "SIGHUP (1)", to: .tree, of: run.children[0], at: 0)
            == [.refuse("child0: cannot send SIGHUP (1): it is not-running, with no process")])
    }

    @Test func aSignalReachesItsTargetAndIsRecorded() {
        let run = RunHarness(children: 1)
        #expect(run.run.signalCommand(10, name: "SIGUSR1 (10)", to: .group, of: run.children[0], at: 0)
            == [.send(10, .processGroup(run.pids[0]), child: 0, note: "sent SIGUSR1 (10) to its process group (signal command)")])
    }

    @Test func onceTheMainProcessIsReapedOnlyTheTreeIsReached() {
        var run = RunHarness(children: 1)
        run.exit(0, .exited(0), treeEmpty: false)
        #expect(run.run.signalCommand(1, name: "SIGHUP (1)", to: .main, of: run.children[0], at: 0)
            == [.refuse("child0: cannot send SIGHUP (1) to its main process: its main process has exited "
                        + "(the target tree reaches what is left)")])
        #expect(run.run.signalCommand(1, name: "SIGHUP (1)", to: .tree, of: run.children[0], at: 0)
            == [.send(1, .tree, child: 0, note: "sent SIGHUP (1) to its tree (signal command)")])
    }
}

/// After reaping (SIGCHLD): whose tree the shell looks at.
@Suite(.timeLimit(.minutes(5))) struct RunReapTests {
    @Test func onlyAnExitedChildWaitingForItsTreeIsLookedAt() {
        var run = RunHarness(children: 3)
        run.exit(0, .exited(0), treeEmpty: false)
        run.exit(1)
        #expect(run.cores.map(\.status.state) == [.exited, .exited, .active])
        #expect(run.handle(.reaped(run.children)) == [.checkTreeEmpty(child: 0)],
                "the child whose tree was empty at its exit is finished, the one that runs has a tree")
        run.feed(0, .treeEmptied)
        #expect(run.handle(.reaped(run.children)) == [], "once its tree is gone, nothing is left to look at")
    }

    /// A tree is looked at while its core waits for it, through the leftover grace; once the
    /// grace is over the core waits no longer (what is left is killed), and nothing is looked at.
    @Test func aTreeIsLookedAtWhileItsCoreWaitsForIt() {
        var run = RunHarness(children: 1)
        run.exit(0, .exited(0), treeEmpty: false)
        run.advance(by: 0.5)
        #expect(run.handle(.reaped(run.children)) == [.checkTreeEmpty(child: 0)])
        run.advance(by: 60)
        #expect(run.cores[0].status.state == .exited && run.cores[0].status.isFinished)
        #expect(run.handle(.reaped(run.children)) == [])
    }
}
