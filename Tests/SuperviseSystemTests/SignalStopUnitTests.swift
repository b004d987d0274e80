import Glibc
import SystemPackage
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// The sigstop freezer against a ``FakeKernel``'s `/proc`: which processes it stops, and when
/// it calls a tree frozen. No real process.
@Suite(.timeLimit(.minutes(5))) struct SignalStopUnitTests {
    let kernel = FakeKernel()

    /// A unit whose main process is 100, a child of pid 1.
    private func makeUnit(_ name: String = "worker", main: Int32 = 100,
                          freezer: SignalStopFreezer? = nil) throws -> (SignalStopFreezer, SignalStopUnit) {
        let freezer = freezer ?? SignalStopFreezer(adoption: nil, system: kernel)
        if kernel.processes[main] == nil { kernel.addProcess(main) }
        let unit = try #require(try freezer.makeUnit(for: name) as? SignalStopUnit)
        unit.attach(pid: main)
        return (freezer, unit)
    }

    /// Asks `isFrozen` up to `checks` times, each in a turn of the loop of its own, as the
    /// supervisor's re-checks do; whether it said yes.
    private func frozen(_ unit: SignalStopUnit, within checks: Int = 5) -> Bool {
        (0..<checks).contains { _ in check(unit) }
    }

    /// Ends the loop's turn, then checks the freeze.
    private func check(_ unit: SignalStopUnit) -> Bool {
        unit.freezer.endMoment()
        return unit.isFrozen()
    }

    private func stops() -> [Int32] {
        kernel.signals.filter { $0.signal == SIGSTOP }.map(\.pid)
    }

    /// The request stops the members known; a check in the same turn does not look; a walk
    /// that finds members not stopped stops them and is no verdict; the next one is.
    @Test func aTreeIsFrozenOnlyOnceAWalkFindsEveryMemberStopped() throws {
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        kernel.addProcess(102, parent: 101)
        try unit.requestFreeze()
        #expect(stops() == [100])
        let reads = kernel.procReads
        #expect(!unit.isFrozen(), "frozen at the request, before any look")
        #expect(kernel.procReads == reads, "looked in the turn of the request")
        #expect(!check(unit), "frozen while 101 and 102 ran")
        #expect(stops().sorted() == [100, 101, 102])
        #expect(check(unit))
        #expect(check(unit), "a verified freeze is asked again")
        #expect(stops().count == 3)
    }

    /// dash runs commands with vfork: when SIGSTOP stops the child before its exec, the parent
    /// waits in `D` in the kernel's clone, unable to run until continued. It counts as stopped.
    @Test(arguments: ["kernel_clone", "wait_for_vfork_done"])
    func aVforkParentCountsAsStopped(waitChannel: String) throws {
        let (_, unit) = try makeUnit()
        kernel.processes[100]?.threads[100] = ("D", waitChannel)
        kernel.addProcess(101, parent: 100)
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(kernel.processes[100]?.threads[100]?.state == "D")
    }

    /// A process in `D` anywhere else may wake and run: the tree is not frozen.
    @Test(arguments: ["pipe_read", "0", ""])
    func aProcessInDiskSleepElsewhereIsNotStopped(waitChannel: String) throws {
        let (_, unit) = try makeUnit()
        kernel.processes[100]?.threads[100] = ("D", waitChannel)
        try unit.requestFreeze()
        #expect(!frozen(unit))
    }

    /// A process still `R` or `S` (the stop not taken yet) is not frozen, nor a process of which
    /// one thread runs; once the kernel stops it, the tree is.
    @Test(arguments: ["R", "S"] as [Character])
    func aRunningOrSleepingProcessIsNotFrozen(state: Character) throws {
        let (_, unit) = try makeUnit()
        kernel.processes[100]?.threads[100] = (state, "0")
        kernel.processes[100]?.stopsOnSIGSTOP = false
        try unit.requestFreeze()
        #expect(!frozen(unit))
        #expect(stops() == [100], "SIGSTOP was sent more than once to the same process")
        kernel.processes[100]?.threads[100] = ("T", "0")
        #expect(frozen(unit))
    }

    @Test func oneThreadStillRunningKeepsTheProcessFromFrozen() throws {
        let (_, unit) = try makeUnit()
        try unit.requestFreeze()
        kernel.processes[100]?.threads[123] = ("R", "0")
        #expect(!frozen(unit))
        kernel.processes[100]?.threads[123] = ("t", "0")
        #expect(frozen(unit))
    }

    /// A member that exits after its stop is gone, not running: the tree is frozen.
    @Test func aMemberThatExitsMidFreezeCountsAsGone() throws {
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        kernel.afterSignal = { pid, signal in
            if pid == 101 && signal == SIGSTOP { self.kernel.processes[101] = nil }
        }
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(stops().sorted() == [100, 101])
    }

    /// A new process that exits between the listing of its parent's children and the read of
    /// its stat is left out of the walk: no error, no signal, and the freeze completes.
    @Test func aProcessThatExitsMidWalkIsLeftOut() throws {
        let (_, unit) = try makeUnit()
        try unit.requestFreeze()
        kernel.upcomingReads["/proc/100/task/100/children"] = [.success("101 ")]
        #expect(frozen(unit))
        #expect(stops() == [100])
    }

    /// A process found that exits before its own children are read has none to walk: no scan of
    /// `/proc` for a `children` file that is missing only because its process is gone.
    @Test func aProcessThatExitsBeforeItsChildrenAreReadCostsNoScan() throws {
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        kernel.afterSignal = { pid, signal in
            if pid == 101 && signal == SIGSTOP { self.kernel.processes[101] = nil }
        }
        var scans = 0
        kernel.afterListing = { if $0 == "/proc" { scans += 1 } }
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(scans == 0)
    }

    /// kill(2) answering ESRCH (the member exited since the scan) is no failure; EPERM is.
    @Test func onlyAStopThatFailsForAnotherReasonThanExitIsAnError() throws {
        let (_, unit) = try makeUnit()
        kernel.upcomingKillFailures[100] = [.noSuchProcess, .notPermitted]
        try unit.requestFreeze()
        do {
            try unit.requestFreeze()
            Issue.record("EPERM from SIGSTOP was not reported")
        } catch {
            #expect(error.errno == EPERM)
            #expect(error.message.contains("process 100"))
        }
    }

    /// The thaw's SIGCONT makes the kernel discard a pending STOP, TSTP, TTIN or TTOU: those
    /// sent while the tree was stopped are sent again after it, in order; others are not.
    @Test func jobControlSignalsSentWhileStoppedAreSentAgainAfterTheThaw() throws {
        let (_, unit) = try makeUnit()
        unit.signalTree(SIGTSTP)  // not frozen: delivered, nothing kept
        try unit.requestFreeze()
        #expect(frozen(unit))
        for signal in [SIGTTIN, SIGHUP, SIGTSTP] { unit.signalTree(signal) }
        let beforeThaw = kernel.signals.count
        try unit.thaw()
        let afterThaw = kernel.signals.dropFirst(beforeThaw).map(\.signal)
        #expect(afterThaw == [SIGCONT, SIGTTIN, SIGTSTP], "\(afterThaw)")
        try unit.requestFreeze()
        #expect(frozen(unit))
        let beforeSecondThaw = kernel.signals.count
        try unit.thaw()
        #expect(kernel.signals.dropFirst(beforeSecondThaw).map(\.signal) == [SIGCONT], "sent again once only")
    }

    /// A pid that names another process since (its start time differs) is never signalled.
    @Test func aReusedPidIsNotSignalled() throws {
        let (_, unit) = try makeUnit()
        kernel.processes[100]?.startTicks += 1
        try unit.requestFreeze()
        unit.signalTree(SIGTERM)
        try unit.thaw()
        #expect(kernel.signals.isEmpty)
    }

    /// Signalling a tree signals the members known at once; the end of the moment scans again
    /// after each round until no new member turns up.
    @Test func signalTreeSignalsChildrenForkedMeanwhileEachOnce() throws {
        let (freezer, unit) = try makeUnit()
        kernel.afterSignal = { pid, _ in
            if pid < 103 { self.kernel.addProcess(pid + 1, parent: pid) }
        }
        unit.signalTree(SIGTERM)
        #expect(kernel.signals.map(\.pid) == [100])
        freezer.endMoment()
        #expect(kernel.signals.map(\.pid) == [100, 101, 102, 103])
        #expect(kernel.signals.allSatisfy { $0.signal == SIGTERM })
    }

    /// A tree that forks on every signal it ignores can't hold the supervisor: at most 8 rounds.
    @Test func aTreeThatForksOnEverySignalIsSignalledForEightRoundsAtMost() throws {
        let (freezer, unit) = try makeUnit()
        kernel.afterSignal = { pid, _ in self.kernel.addProcess(pid + 1, parent: pid) }
        unit.signalTree(SIGTERM)
        freezer.endMoment()
        #expect(kernel.signals.map(\.pid) == Array(100..<108))
    }

    /// Each look in a moment of its own: a look asked again in the moment it ended in finds
    /// nothing new (``SignalStopFreezer/moment``).
    @Test func outsideChangesAreAContinuedProcessOrANewMember() throws {
        let (freezer, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(unit.outsideChange() == nil)
        _ = kernel.kill(101, SIGCONT)
        #expect(unit.outsideChange() == nil, "asked again in the moment its look ended in")
        freezer.endMoment()
        #expect(unit.outsideChange() == .thawed("process 101 was continued"))
        _ = kernel.kill(101, SIGSTOP)
        kernel.addProcess(102, parent: 101)
        usleep(3_000) // past the reuse of the last scan (``SignalStopFreezer/recentTable()``)
        freezer.endMoment()
        #expect(unit.outsideChange() == .thawed("process 102 started while the tree was stopped"))
    }

    /// A look for a change from outside (before each command: `foreground`) scans `/proc` only
    /// when a stopped process has run since the freeze was verified, or the kernel can't tell
    /// (no schedstat count): a tree that did not run can't have forked.
    @Test(arguments: [1, 0] as [UInt64])
    func aLookForOutsideChangeScansOnlyWhenAStoppedProcessRan(timesRun: UInt64) throws {
        let (freezer, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        for pid: Int32 in [100, 101] { kernel.processes[pid]?.timesRun = timesRun }
        try unit.requestFreeze()
        #expect(frozen(unit))
        var scans = 0
        kernel.afterListing = { if $0 == "/proc" { scans += 1 } }
        usleep(3_000) // past the reuse of the last scan (``SignalStopFreezer/recentTable()``)
        #expect(unit.outsideChange() == nil)
        #expect(scans == (timesRun == 0 ? 1 : 0), "scans of a tree that did not run: \(scans)")
        _ = kernel.kill(101, SIGCONT)
        _ = kernel.kill(101, SIGSTOP)
        kernel.addProcess(102, parent: 101)
        usleep(3_000)
        freezer.endMoment()
        #expect(unit.outsideChange() == .thawed("process 102 started while the tree was stopped"))
    }

    /// The thaw of a one-process tree sends SIGCONT through the main process's held directory,
    /// which names it whoever has its pid, and reads its stat once after, to see it run: no
    /// listing of its threads (foreground: 46 → 33 → 8 system calls).
    @Test func aThawOfOneProcessReadsOneFile() throws {
        let (_, unit) = try makeUnit()
        try unit.requestFreeze()
        #expect(frozen(unit))
        let before = kernel.procReads
        try unit.thaw()
        #expect(kernel.procReads - before == 1, "files read: \(kernel.procReads - before)")
        #expect(kernel.processes[100]?.threads[100]?.state == "S")
    }

    @Test func aThawContinuesExactlyWhatTheFreezeStopped() throws {
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        kernel.addProcess(900, state: "T")
        try unit.requestFreeze()
        #expect(frozen(unit))
        try unit.thaw()
        #expect(kernel.signals.filter { $0.signal == SIGCONT }.map(\.pid).sorted() == [100, 101])
        #expect(kernel.processes[900]?.threads[900]?.state == "T")
        #expect(!unit.isFrozen())
    }

    /// A freeze walks the tree down its children links: `background all` scans `/proc` not once.
    @Test func freezingSeveralTreesScansNoProc() throws {
        let freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        kernel.addProcess(50)
        let (_, first) = try makeUnit("first", main: 100, freezer: freezer)
        let (_, second) = try makeUnit("second", main: 200, freezer: freezer)
        for pid: Int32 in [100, 200] { kernel.processes[pid]?.parent = 50 }
        kernel.addProcess(201, parent: 200)
        var scans = 0
        kernel.afterListing = { if $0 == "/proc" { scans += 1 } }
        try first.requestFreeze()
        try second.requestFreeze()
        #expect(frozen(first) && frozen(second))
        #expect(stops().sorted() == [100, 200, 201])
        #expect(scans == 0)
    }

    /// Where the kernel has no `children` files (`CONFIG_PROC_CHILDREN`), a scan of `/proc`
    /// answers the walk: the tree is still found whole.
    @Test func withoutChildrenFilesAScanAnswersTheWalk() throws {
        kernel.childrenFiles = false
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        kernel.addProcess(102, parent: 101)
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(stops().sorted() == [100, 101, 102])
    }

    /// One suspend of a one-process tree, counted: the stop (through its held directory), then
    /// one look (its stat and schedstat), its children, and the supervisor's, in the same turn as
    /// no other unit is freezing, whatever else runs on the machine; no scan of `/proc` (it cost
    /// four system calls per process on the machine, ~500 in all), and nothing more for the
    /// snapshot (the look's stat gives it).
    @Test func oneSuspendOfOneProcessReadsFourFilesInOneTurn() throws {
        let freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: true), system: kernel)
        kernel.addProcess(50)
        kernel.addProcess(100, parent: 50)
        for pid: Int32 in 1_000..<1_100 { kernel.addProcess(pid) }
        let (_, unit) = try makeUnit(freezer: freezer)
        let before = kernel.procReads
        try unit.requestFreeze()
        #expect(!unit.isFrozen())
        freezer.endMoment()
        #expect(unit.checkFreeze() == .frozen, "the supervisor's children are listed at once")
        #expect(unit.resourceUsage()?.rssKB == 250 * ProcFS.pageSize / 1024)
        #expect(kernel.procReads - before == 4, "files read: \(kernel.procReads - before)")
        #expect(kernel.signals.map(\.signal) == [SIGSTOP])
    }

    /// A zombie is gone; the unit is empty once every member is dead or reaped.
    @Test func zombiesCountAsGone() throws {
        let (_, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        try unit.requestFreeze()
        #expect(frozen(unit))
        #expect(!unit.isEmpty())
        kernel.processes[100]?.threads[100] = ("Z", "0")
        #expect(!unit.isEmpty(), "empty while 101 lived")
        kernel.processes[101] = nil
        #expect(unit.isEmpty())
    }

    /// Leaving, the freezer kills what is left below the supervisor: orphans no child claimed.
    @Test func removeAllKillsTheUnclaimedOrphans() throws {
        let freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        _ = try makeUnit(freezer: freezer)
        kernel.addProcess(300, parent: 50)
        kernel.addProcess(301, parent: 300)
        kernel.addProcess(400, parent: 1)
        freezer.removeAll()
        #expect(Set(kernel.signals.filter { $0.signal == SIGKILL }.map(\.pid)) == [100, 300, 301])
        #expect(kernel.processes[400] != nil)
    }

    /// An orphan reparented to the supervisor belongs to the child its SUPERVISE_NAME names,
    /// read from `/proc/PID/environ`, and is stopped with that child only.
    @Test func anAdoptedOrphanIsStoppedWithTheChildItNames() throws {
        let freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        kernel.addProcess(50)  // the supervisor
        let (_, first) = try makeUnit("first", main: 100, freezer: freezer)
        let (_, second) = try makeUnit("second", main: 200, freezer: freezer)
        kernel.addProcess(300, parent: 50)
        kernel.processes[300]?.environment = ["PATH=/bin", "SUPERVISE_NAME=second"]
        try first.requestFreeze()
        #expect(frozen(first))
        #expect(!stops().contains(300))
        try second.requestFreeze()
        #expect(frozen(second))
        #expect(stops().sorted() == [100, 200, 300])
    }
}
