import Testing
@testable import SuperviseLifecycle

/// Commands for the run's children, and what is refused once the run is ending (docs/cli.md,
/// "End of input, and the end of the run").
@Suite(.timeLimit(.minutes(5))) struct RunCommandTests {
    private let ending = "every child has exited and the run is ending (--keep-running keeps it up)"

    @Test func aCommandForAChildWithAProcessGoesToItsCore() {
        var run = RunHarness(children: 2)
        for input in [LifecycleInput.background, .foreground, .terminate(escalate: false), .start, .restart,
                      .event(kind: "sync", text: nil)] {
            #expect(run.run.command(input, to: run.children[1], at: 1, runIsEnding: run.isEnding) == [.feed(child: 1, input)])
        }
        run.endEveryChild([0, 0])
        #expect(run.run.command(.background, to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.feed(child: 0, .background)], "its core decides what a non-launching command does to an exited child")
    }

    @Test func aLaunchOfAnExitedChildIsRefusedOnceTheRunIsEnding() {
        var run = RunHarness(children: 1)
        run.endEveryChild([0])
        #expect(run.isOver)
        #expect(run.run.command(.start, to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.refuse("child0: cannot start: \(ending)")])
        #expect(run.run.command(.restart, to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.refuse("child0: cannot start: \(ending)")])
        #expect(run.run.command(.event(kind: "sync", text: nil), to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.refuse("child0: cannot deliver event: \(ending)")])
    }

    @Test func whileAnotherChildRunsAnExitedOneIsWrappedUpThenStarted() {
        var run = RunHarness(children: 2)
        run.advance(by: 1)
        run.exit(0, .exited(1))
        #expect(!run.isEnding)
        let actions = run.run.command(.start, to: run.children[0], at: 0, runIsEnding: run.isEnding)
        #expect(actions == [.wrapUp(child: 0), .feed(child: 0, .start)], "its last run is closed before the next starts")
        run.wrapUp(0)
        run.carryOut([.feed(child: 0, .start)])
        #expect(run.cores[0].runCount == 2 && run.cores[0].status.state == .active)
        run.exit(0)
        run.wrapUp(0)
        #expect(run.run.command(.start, to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.feed(child: 0, .start)], "already wrapped up")
    }

    @Test func aNotRunningChildCanBeLaunchedWhileCommandsMayCome() {
        var run = RunHarness(children: 1, autostart: false)
        run.sources.socketOpen = true
        #expect(run.run.command(.event(kind: "sync", text: nil), to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.wrapUp(child: 0), .feed(child: 0, .event(kind: "sync", text: nil))])
        run.sources.socketOpen = false
        #expect(run.run.command(.start, to: run.children[0], at: 0, runIsEnding: run.isEnding)
            == [.refuse("child0: cannot start: \(ending)")], "no source of commands is left")
    }

    @Test func whetherTheRunIsEndingIsAskedOnlyOfALaunchOfAChildWithoutAProcess() {
        let run = RunHarness(children: 1)
        var asked = 0
        func ending() -> Bool {
            asked += 1
            return true
        }
        _ = run.run.command(.start, to: run.children[0], at: 0, runIsEnding: ending())
        _ = run.run.command(.background, to: run.children[0], at: 0, runIsEnding: ending())
        #expect(asked == 0, "a child with a process: the run is not ending")
    }

    @Test func allReachesEveryChildAndANameTheChildSoNamed() {
        #expect(RunCore.places(.all, among: ["api", "db", "cache"]) == .children([0, 1, 2]))
        #expect(RunCore.places(.named("db"), among: ["api", "db", "cache"]) == .children([1]))
        #expect(RunCore.places(.named("web"), among: ["api", "db"]) == .noChildNamed("web"))
    }

    @Test func noNameReachesTheOnlyChildAndIsRefusedAmongSeveral() {
        #expect(RunCore.places(.unnamed, among: ["api"]) == .children([0]))
        #expect(RunCore.places(.unnamed, among: ["api", "db"]) == .refused(reason: "name a child or 'all' (children: api, db)"))
    }
}

/// Whether a child's first run starts as it joins the run (config `autostart`).
@Suite(.timeLimit(.minutes(5))) struct RunJoinTests {
    @Test func aChildStartsAsItJoinsUnlessItIsLeftNotRunning() {
        var run = RunHarness(children: 0)
        let core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false)
        let child = RunChild(name: "api", core: core, wrappedUp: false, pid: 0, mainProcessAlive: false)
        #expect(run.handle(.joined(child: 3, child)) == [.startFirstRun(child: 3)])
        let idle = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false, autostart: false)
        let parked = RunChild(name: "push", core: idle, wrappedUp: false, pid: 0, mainProcessAlive: false)
        #expect(parked.status.state == .notRunning)
        #expect(run.handle(.joined(child: 4, parked)) == [], "autostart = false: an event or start launches it")
    }
}
