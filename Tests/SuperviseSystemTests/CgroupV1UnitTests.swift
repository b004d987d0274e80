import Glibc
import SystemPackage
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// The cgroup v1 unit against a ``FakeKernel``: how it reads and re-writes `freezer.state`.
/// No root, no real process.
@Suite(.timeLimit(.minutes(5))) struct CgroupV1UnitTests {
    static let directory = "/sys/fs/cgroup/freezer/supervise-1-00000000000000ab/worker.1"
    static let state = directory + "/freezer.state"

    let kernel = FakeKernel()

    private func makeUnit() throws -> CgroupV1Unit {
        kernel.addCgroupV1(Self.directory)
        kernel.addProcess(600, in: Self.directory)
        let unit = try CgroupV1Unit(directory: Self.directory, childName: "worker", system: kernel)
        unit.attach(pid: 600)
        return unit
    }

    /// A task forked while the cgroup freezes can be missed: FREEZING is never frozen, and each
    /// re-check writes FROZEN again, which makes the kernel try every task again.
    @Test func freezingIsNotFrozenAndEachRecheckWritesFrozenAgain() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        #expect(kernel.writes(to: Self.state) == ["FROZEN"])
        kernel.upcomingReads[Self.state] = [.success("FREEZING\n"), .success("FREEZING\n")]
        #expect(!unit.isFrozen())
        #expect(!unit.isFrozen())
        #expect(kernel.writes(to: Self.state) == ["FROZEN", "FROZEN", "FROZEN"])
        #expect(unit.isFrozen())
        #expect(kernel.writes(to: Self.state).count == 3, "FROZEN was written again once frozen")
    }

    @Test func thawedIsNotFrozenAndIsNotRewritten() throws {
        let unit = try makeUnit()
        #expect(!unit.isFrozen())
        #expect(kernel.writes(to: Self.state).isEmpty)
    }

    /// EBUSY from a write of FROZEN means some task could not be frozen yet: the re-checks
    /// retry it, so it is no failure. Any other errno is.
    @Test func busyFromAFreezeWriteIsLeftToTheRechecks() throws {
        let unit = try makeUnit()
        kernel.upcomingWriteFailures[Self.state] = [.resourceBusy, .permissionDenied]
        try unit.requestFreeze()
        do {
            try unit.requestFreeze()
            Issue.record("EACCES from freezer.state was not reported")
        } catch {
            #expect(error.errno == EACCES)
            #expect(error.message.contains("freezer.state"))
        }
    }

    /// v1 tells neither a thaw by someone else nor a SIGKILL it holds back: the state file and
    /// the main process's pending signals do.
    @Test func outsideChangesAreAThawedStateOrAHeldBackKill() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        #expect(unit.isFrozen())
        #expect(unit.outsideChange() == nil)
        kernel.processes[600]?.killPending = true
        #expect(unit.outsideChange() == .mainProcessKilled)
        kernel.processes[600]?.killPending = false
        kernel.files[Self.state] = "THAWED\n"
        #expect(unit.outsideChange() == .thawed("freezer.state says THAWED"))
    }

    /// A frozen v1 task acts on SIGKILL only once thawed: every process, in sub-cgroups too,
    /// is signalled before any cgroup is thawed.
    @Test func killAllSignalsEveryProcessThenThawsEveryCgroup() throws {
        let unit = try makeUnit()
        let inner = Self.directory + "/inner"
        kernel.addCgroupV1(inner)
        kernel.addProcess(601, parent: 600, in: inner)
        unit.killAll()
        let kills = kernel.calls.enumerated().filter { if case .kill = $0.element { true } else { false } }
        let thaws = kernel.calls.enumerated().filter { $0.element == .write(Self.state, "THAWED")
            || $0.element == .write(inner + "/freezer.state", "THAWED") }
        #expect(kills.map(\.element) == [.kill(600, SIGKILL), .kill(601, SIGKILL)])
        #expect(thaws.count == 2)
        #expect((kills.map(\.offset).max() ?? 0) < (thaws.map(\.offset).min() ?? 0))
        #expect(unit.isEmpty())
    }

    @Test func aThawIsVerifiedByTheStateFile() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.upcomingReads[Self.state] = [.success("FROZEN\n"), .success("FROZEN\n")]
        try unit.thaw()
        #expect(kernel.upcomingReads[Self.state]?.isEmpty == true, "the thaw returned while the state said FROZEN")
        #expect(kernel.writes(to: Self.state) == ["FROZEN", "THAWED"])
    }

    @Test func aThawThatNeverTakesIsAnError() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.upcomingReads[Self.state] = Array(repeating: .success("FROZEN\n"), count: 10_000)
        #expect(throws: SupervisorError.self) { try unit.thaw() }
    }

    /// v1 has no `cpu.stat` here: CPU time and memory are summed over the processes' `/proc`.
    @Test func usageIsSummedOverTheProcesses() throws {
        let unit = try makeUnit()
        kernel.addCgroupV1(Self.directory + "/inner")
        kernel.addProcess(601, parent: 600, in: Self.directory + "/inner")
        let ticks = 2 * (7 + 3)
        #expect(unit.resourceUsage() == ResourceUsage(rssKB: 2 * 250 * ProcFS.pageSize / 1024,
                                                      cpuMS: Double(ticks) * 1000 / Double(ProcFS.ticksPerSecond)))
    }

    @Test func removeEmptiesClosesAndRemovesTheCgroup() throws {
        let unit = try makeUnit()
        #expect(unit.placementFD != nil)
        unit.remove()
        #expect(kernel.signals.map(\.pid) == [600])
        #expect(!kernel.directories.contains(Self.directory))
        #expect(kernel.openDescriptors.isEmpty)
        #expect(unit.placementFD == nil)
        #expect(!unit.isFrozen() && unit.outsideChange() == nil)
    }
}
