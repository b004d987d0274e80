import Glibc
import Testing
@testable import SuperviseSystem

/// The sigstop freezer shares its scans of `/proc` among the children signalled or emptied in
/// one moment (`terminate all` at 1,000 children once scanned `/proc` three times per child),
/// against a ``FakeKernel``: what each process is sent, and how many scans it took.
@Suite(.timeLimit(.minutes(5))) struct SignalStopMomentTests {
    let kernel = FakeKernel()
    let freezer: SignalStopFreezer
    /// How many times `/proc` was listed: one per scan.
    private var scans: () -> Int

    init() {
        freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: false), system: kernel)
        var count = 0
        let kernel = kernel
        kernel.afterListing = { if $0 == "/proc" { count += 1 } }
        scans = { count }
    }

    /// Units whose main processes are 100, 200, …, each a child of the adopter.
    private func makeUnits(_ count: Int) throws -> [SignalStopUnit] {
        try (1...count).map { index in
            let main = Int32(index * 100)
            kernel.addProcess(main, parent: 50)
            kernel.processes[main]?.environment = ["SUPERVISE_NAME=c\(index)"]
            let unit = try #require(try freezer.makeUnit(for: "c\(index)") as? SignalStopUnit)
            unit.attach(pid: main)
            return unit
        }
    }

    private func signals(to pid: Int32) -> [Int32] {
        kernel.signals.filter { $0.pid == pid }.map(\.signal)
    }

    /// The stop signal and the SIGCONT after it, to three trees in one moment: each known member
    /// at once, then one scan for all, which finds what they forked meanwhile and sends it both,
    /// in order.
    @Test func theSignalsOfOneMomentShareOneScan() throws {
        let units = try makeUnits(3)
        kernel.addProcess(201, parent: 200)  // forked since the last scan
        for unit in units {
            unit.signalTree(SIGTERM)
            unit.signalTree(SIGCONT)
        }
        #expect(scans() == 0, "a scan per child")
        #expect(signals(to: 201).isEmpty)
        freezer.endMoment()
        #expect(scans() == 2, "one scan finds 201, one more finds nothing new")
        for pid: Int32 in [100, 200, 201, 300] { #expect(signals(to: pid) == [SIGTERM, SIGCONT], "pid \(pid)") }
        freezer.endMoment()
        #expect(scans() == 2, "a moment with no signal scanned")
    }

    /// A descendant that left the process group (setsid) and was orphaned when its parent
    /// exited is still reached: the scan finds it below the supervisor, by its SUPERVISE_NAME.
    @Test func anOrphanThatLeftTheGroupIsReachedByTheMomentsScan() throws {
        let units = try makeUnits(2)
        kernel.addProcess(301, parent: 50)
        kernel.processes[301]?.environment = ["SUPERVISE_NAME=c1"]
        units[0].signalTree(SIGTERM)
        freezer.endMoment()
        #expect(signals(to: 301) == [SIGTERM])
        #expect(signals(to: 200).isEmpty)
    }

    /// A signal still closing when the child's next run is attached does not reach the new run.
    @Test func aNewRunDropsTheLastRunsSignals() throws {
        let unit = try makeUnits(1)[0]
        unit.signalTree(SIGKILL)
        kernel.processes[100] = nil
        kernel.addProcess(150, parent: 50)
        unit.attach(pid: 150)
        freezer.endMoment()
        #expect(signals(to: 150).isEmpty)
    }

    /// A pid reused by another process since the scan is not signalled by the closing either.
    @Test func aReusedPidIsNotSignalledWhenTheMomentEnds() throws {
        let unit = try makeUnits(1)[0]
        kernel.addProcess(101, parent: 100)
        freezer.rescan()
        kernel.processes[101]?.startTicks += 1  // 101 exited, and its pid names another process
        kernel.processes[101]?.parent = 1
        unit.signalTree(SIGTERM)
        freezer.endMoment()
        #expect(signals(to: 101).isEmpty)
    }

    /// Three children whose processes all exited: the first asked scans once, and that scan
    /// answers the other two; a child with a live descendant is not empty, and is looked at
    /// again once it is gone.
    @Test func oneScanAnswersEveryUnitWhoseMembersAreGone() throws {
        let units = try makeUnits(4)
        kernel.addProcess(401, parent: 400)
        freezer.rescan()
        let before = scans()
        for pid: Int32 in [100, 200, 300, 400] { kernel.processes[pid]?.threads[pid] = ("Z", "0") }
        kernel.processes[401]?.parent = 50  // orphaned, reparented to the supervisor
        #expect(units[0].isEmpty())
        #expect(scans() == before + 1)
        #expect(units[1].isEmpty() && units[2].isEmpty(), "answered by the first one's scan")
        #expect(!units[3].isEmpty(), "empty while 401 lived")
        #expect(scans() == before + 1, "scanned again for trees already answered")
        kernel.processes[401] = nil
        #expect(units[3].isEmpty())
        #expect(scans() == before + 2)
    }
}
