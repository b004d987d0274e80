import Glibc
import Testing
@testable import SuperviseSystem

/// The sigstop freezer holds its children's main processes' `/proc` files open
/// (``HeldProcessFiles``): each read is one `pread`, each signal goes through the process's
/// directory, and a pid reused after the process was reaped is never read or signalled as it.
@Suite(.timeLimit(.minutes(5))) struct SignalStopHeldFilesTests {
    let kernel = FakeKernel()

    /// A freezer whose orphans go to 50, with a unit `worker` whose main process 100 is its child.
    private func makeUnit(_ name: String = "worker", main: Int32 = 100,
                          in freezer: SignalStopFreezer? = nil) throws -> (SignalStopFreezer, SignalStopUnit) {
        if kernel.processes[50] == nil { kernel.addProcess(50) }
        let freezer = freezer ?? SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        kernel.addProcess(main, parent: 50)
        let unit = try #require(try freezer.makeUnit(for: name) as? SignalStopUnit)
        unit.attach(pid: main)
        return (freezer, unit)
    }

    /// Requests a freeze and checks it in the same turn, as the supervisor does: the stops are
    /// sent, and the check that follows waits for the next turn.
    private func request(_ unit: SignalStopUnit) throws {
        try unit.requestFreeze()
        #expect(unit.checkFreeze() == .notFrozen)
    }

    @Test func theMainProcessIsReadAndSignalledThroughItsHeldFilesUntilRemoved() throws {
        let (freezer, unit) = try makeUnit()
        #expect(kernel.openDescriptors.count == 2 * ProcessFile.allCases.count, "the supervisor's and the main process's")
        try request(unit)
        freezer.endMoment()
        #expect(unit.checkFreeze() == .frozen)
        try unit.thaw()
        #expect(kernel.signals.map(\.signal) == [SIGSTOP, SIGCONT])
        #expect(kernel.signals.allSatisfy { $0.pid == 100 })
        unit.remove()
        freezer.removeAll()
        #expect(kernel.openDescriptors.isEmpty, "left open: \(kernel.openDescriptors.count)")
    }

    /// Reaped, its pid taken by a process started later: the held files read ESRCH, so the
    /// unit neither signals the newcomer nor takes its stat, and closes the files.
    @Test func aMainProcessReapedAndItsPidReusedIsNotSignalled() throws {
        let (freezer, unit) = try makeUnit()
        try request(unit)
        freezer.endMoment()
        #expect(unit.checkFreeze() == .frozen)
        kernel.processes[100] = FakeKernel.Process(parent: 1, startTicks: 2_000, threads: [100: ("S", "0")])
        let sent = kernel.signals.count
        try unit.thaw()
        unit.signalTree(SIGTERM)
        #expect(kernel.signals.count == sent, "signalled: \(kernel.signals.dropFirst(sent).map { ($0.pid, $0.signal) })")
        #expect(kernel.openDescriptors.count == ProcessFile.allCases.count, "only the supervisor's files stay open")
    }

    /// A main process whose `/proc` entry names another parent is not held: there the number
    /// names another process (a `/proc` of another pid namespace). It is read by path and
    /// signalled with `kill`, by its pid in the supervisor's namespace.
    @Test func aProcessThatIsNotTheSupervisorsChildIsNotHeld() throws {
        kernel.addProcess(50)
        let freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        kernel.addProcess(100, parent: 7)
        let unit = try #require(try freezer.makeUnit(for: "worker") as? SignalStopUnit)
        unit.attach(pid: 100)
        #expect(kernel.openDescriptors.count == ProcessFile.allCases.count, "only the supervisor's files")
        try unit.requestFreeze()
        #expect(kernel.signals.map(\.pid) == [100])
        #expect(kernel.readsByPath["/proc/100/stat", default: 0] >= 2, "read by path, before the stop too")
    }

    /// A new run attached to the unit releases the last run's files and holds the new one's.
    @Test func aNewRunReleasesTheLastRunsFiles() throws {
        let (_, unit) = try makeUnit()
        kernel.processes[100] = nil
        kernel.addProcess(300, parent: 50)
        unit.attach(pid: 300)
        #expect(kernel.openDescriptors.count == 2 * ProcessFile.allCases.count)
        try unit.requestFreeze()
        #expect(kernel.signals.map(\.pid) == [300])
    }

    /// The look for a change from outside reads the main process, held open, by its schedstat
    /// count alone while the kernel has not run it since the freeze. Continued from outside but
    /// not run yet, it is seen once it runs (its count moves; its first act tells the supervisor,
    /// its parent). Another member is read by its stat, which says at once.
    @Test func theMainProcessIsLookedAtByItsRunCountAnotherMemberByItsStat() throws {
        let (freezer, unit) = try makeUnit()
        kernel.addProcess(101, parent: 100)
        try request(unit)
        freezer.endMoment()
        #expect(unit.checkFreeze() == .notFrozen, "101 found and stopped by the walk")
        freezer.endMoment()
        #expect(unit.checkFreeze() == .frozen)
        let mainStatReads = kernel.readsByPath["/proc/100/stat"] ?? 0
        freezer.endMoment()
        #expect(unit.outsideChange() == nil)
        #expect(kernel.readsByPath["/proc/100/stat"] == mainStatReads, "the main process's stat read again")

        kernel.processes[100]?.threads[100]?.state = "S"
        freezer.endMoment()
        #expect(unit.outsideChange() == nil, "continued, not run yet")
        kernel.processes[100]?.timesRun += 1
        freezer.endMoment()
        #expect(unit.outsideChange() == .thawed("process 100 was continued"))

        kernel.processes[100]?.threads[100]?.state = "T"
        kernel.processes[101]?.threads[101]?.state = "S"
        freezer.endMoment()
        #expect(unit.outsideChange() == .thawed("process 101 was continued"), "a member's count is not trusted alone")
    }

    /// Alone in freezing, a unit has the supervisor's children listed as soon as its walk asks:
    /// its check ends in the turn it began. Two freezing at once share one listing at the end
    /// of the turn.
    @Test func aUnitAloneHasTheOrphansListedAtOnceTwoShareOneListing() throws {
        let (freezer, first) = try makeUnit()
        try request(first)
        freezer.endMoment()
        #expect(first.checkFreeze() == .frozen, "verified in one turn")
        #expect(kernel.readsByPath["/proc/50/task/50/children"] == 1)

        let (_, second) = try makeUnit("second", main: 200, in: freezer)
        let (_, third) = try makeUnit("third", main: 300, in: freezer)
        try request(second)
        try request(third)
        freezer.endMoment()
        #expect(second.checkFreeze() == .unfinished && third.checkFreeze() == .unfinished)
        freezer.endMoment()
        #expect(second.checkFreeze() == .frozen && third.checkFreeze() == .frozen)
        #expect(kernel.readsByPath["/proc/50/task/50/children"] == 2, "one listing for the two")
    }
}
