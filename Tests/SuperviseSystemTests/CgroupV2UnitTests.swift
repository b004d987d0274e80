import Glibc
import SystemPackage
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// The cgroup v2 unit against a ``FakeKernel``: what it concludes from `cgroup.events` and
/// `cgroup.freeze`, and what it writes. No root, no real process.
@Suite(.timeLimit(.minutes(5))) struct CgroupV2UnitTests {
    static let directory = "/sys/fs/cgroup/supervise-1-00000000000000ab/worker.1"
    static let freeze = directory + "/cgroup.freeze"
    static let events = directory + "/cgroup.events"
    static let inotifyFD: Int32 = 7

    let kernel = FakeKernel()

    private func makeUnit() throws -> CgroupV2Unit {
        kernel.addCgroupV2(Self.directory)
        kernel.addProcess(500, in: Self.directory)
        let unit = try CgroupV2Unit(directory: Self.directory, childName: "worker", inotifyFD: Self.inotifyFD, system: kernel)
        unit.attach(pid: 500)
        return unit
    }

    @Test func aFreezeIsVerifiedOnlyOnceCgroupEventsSaysFrozen() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        #expect(kernel.writes(to: Self.freeze) == ["1"])
        #expect(!unit.isFrozen(), "frozen before the kernel said so")
        kernel.setFrozen(Self.directory, true)
        #expect(unit.isFrozen())
    }

    /// The kernel sends at most one `cgroup.events` notification per ~10 ms: a freeze right
    /// after a thaw may get none in time. The frozen flag itself must be enough.
    @Test func aFreezeRightAfterAThawIsSeenWithoutANotification() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.setFrozen(Self.directory, true)
        #expect(unit.isFrozen())
        unit.drainNotification()
        try unit.thaw()
        try unit.requestFreeze()
        kernel.setFrozen(Self.directory, true, notify: false)
        #expect(kernel.pendingNotifications[Self.inotifyFD] == 0)
        #expect(unit.isFrozen(), "the freeze went unseen for want of a notification")
        #expect(kernel.writes(to: Self.freeze) == ["1", "0", "1"])
    }

    /// Thawing while `cgroup.events` still says frozen 1 (the kernel is still thawing): the
    /// thaw waits for frozen 0, so a freeze right after can't take that stale 1 for its own.
    @Test func aThawWaitsUntilCgroupEventsStopsSayingFrozen() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.setFrozen(Self.directory, true)
        #expect(unit.isFrozen())
        let stillFrozen = "populated 1\nfrozen 1\n"
        kernel.upcomingReads[Self.events] = [.success(stillFrozen), .success(stillFrozen), .success(stillFrozen)]
        try unit.thaw()
        #expect(kernel.upcomingReads[Self.events]?.isEmpty == true, "the thaw returned while events said frozen 1")

        try unit.requestFreeze()
        kernel.upcomingReads[Self.events] = [.success("populated 1\nfrozen 0\n")]
        kernel.setFrozen(Self.directory, true)
        #expect(!unit.isFrozen(), "frozen 0 read as frozen")
        #expect(unit.isFrozen())
    }

    @Test func aThawTheKernelNeverFinishesIsAnError() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.upcomingReads[Self.events] = Array(repeating: .success("populated 1\nfrozen 1\n"), count: 10_000)
        #expect(throws: SupervisorError.self) { try unit.thaw() }
    }

    /// `frozen` drops for a moment while a task joins or dies; only `cgroup.freeze` reading 0
    /// is a thaw by someone else.
    @Test func onlyCgroupFreezeReadingZeroIsAnOutsideThaw() throws {
        let unit = try makeUnit()
        try unit.requestFreeze()
        kernel.setFrozen(Self.directory, true)
        #expect(unit.isFrozen())
        kernel.setFrozen(Self.directory, false)
        #expect(unit.outsideChange() == nil, "a dip of frozen taken for a thaw")
        kernel.files[Self.freeze] = "0\n"
        #expect(unit.outsideChange() == .thawed("cgroup.freeze says 0"))
    }

    @Test func aFailedFreezeWriteThrowsWithItsErrno() throws {
        let unit = try makeUnit()
        kernel.upcomingWriteFailures[Self.freeze] = [.resourceBusy]
        do {
            try unit.requestFreeze()
            Issue.record("a failed write of cgroup.freeze was not reported")
        } catch {
            #expect(error.errno == EBUSY)
            #expect(error.message.contains("cgroup.freeze"))
        }
    }

    @Test func aNotificationIsDrainedFromTheSharedDescriptor() throws {
        let unit = try makeUnit()
        #expect(unit.notificationFD == Self.inotifyFD)
        kernel.setFrozen(Self.directory, true)
        #expect(kernel.pendingNotifications[Self.inotifyFD] == 1)
        unit.drainNotification()
        #expect(kernel.pendingNotifications[Self.inotifyFD] == 0)
    }

    @Test func killAllWritesCgroupKillAndSendsNoSignal() throws {
        let unit = try makeUnit()
        unit.killAll()
        #expect(kernel.writes(to: Self.directory + "/cgroup.kill") == ["1"])
        #expect(kernel.signals.isEmpty)
        #expect(unit.isEmpty())
    }

    /// A child cloned into a cgroup once killed with `cgroup.kill` is killed at birth on this
    /// kernel: the next run is placed through `cgroup.procs` instead.
    /// `cgroup.procs` is opened only then: a child cloned into the directory needs none.
    @Test func afterCgroupKillTheNextRunIsPlacedThroughCgroupProcs() throws {
        let unit = try makeUnit()
        #expect(unit.placementDirectoryFD != nil && unit.placementFD == nil)
        #expect(kernel.openDescriptors.count == 3, "the directory, cgroup.freeze and cgroup.events")
        unit.killAll()
        #expect(unit.placementDirectoryFD == nil)
        #expect(unit.placementFD != nil)
    }

    /// Without `cgroup.procs` open, `cgroup.kill` would leave the next run no placement: the
    /// processes are SIGKILLed instead, and the next run is still cloned into the directory.
    @Test func whenCgroupProcsCanNotBeOpenedKillAllSignalsAndKeepsTheDirectoryPlacement() throws {
        kernel.openFailures[Self.directory + "/cgroup.procs"] = .permissionDenied
        let unit = try makeUnit()
        unit.killAll()
        #expect(kernel.writes(to: Self.directory + "/cgroup.kill").isEmpty)
        #expect(kernel.signals.map(\.pid) == [500] && kernel.signals.allSatisfy { $0.signal == SIGKILL })
        #expect(unit.placementDirectoryFD != nil && unit.placementFD == nil)
    }

    /// Before Linux 5.14 there is no `cgroup.kill`: every process, in sub-cgroups too, is
    /// SIGKILLed until none is left.
    @Test func withoutCgroupKillEveryProcessIsSignalled() throws {
        kernel.addCgroupV2(Self.directory, cgroupKill: false)
        kernel.addCgroupV2(Self.directory + "/inner", cgroupKill: false)
        kernel.addProcess(500, in: Self.directory)
        kernel.addProcess(501, parent: 500, in: Self.directory + "/inner")
        let unit = try CgroupV2Unit(directory: Self.directory, childName: "worker", inotifyFD: Self.inotifyFD, system: kernel)
        unit.killAll()
        #expect(kernel.signals.map(\.pid).sorted() == [500, 501])
        #expect(kernel.signals.allSatisfy { $0.signal == SIGKILL })
        #expect(unit.isEmpty())
    }

    /// Processes that turn up while the tree is signalled are signalled too, each once.
    @Test func signalTreeSignalsProcessesThatAppearMeanwhile() throws {
        let unit = try makeUnit()
        kernel.afterSignal = { pid, _ in
            guard pid < 503 else { return }
            self.kernel.addProcess(pid + 1, parent: pid, in: Self.directory)
        }
        unit.signalTree(SIGTERM)
        #expect(kernel.signals.map(\.pid) == [500, 501, 502, 503])
        #expect(kernel.signals.allSatisfy { $0.signal == SIGTERM })
    }

    @Test func removeKillsThawsClosesAndRemovesSubCgroupsFirst() throws {
        let unit = try makeUnit()
        kernel.addCgroupV2(Self.directory + "/inner")
        #expect(kernel.openDescriptors.count == 3)
        try unit.requestFreeze()
        unit.remove()
        #expect(kernel.writes(to: Self.freeze) == ["1", "0"])
        #expect(kernel.openDescriptors.isEmpty)
        #expect(kernel.calls.filter { if case .removeDirectory = $0 { true } else { false } }
                == [.removeDirectory(Self.directory + "/inner"), .removeDirectory(Self.directory)])
        #expect(!kernel.directories.contains(Self.directory))
        #expect(unit.placementFD == nil && unit.notificationFD == nil)
        #expect(throws: SupervisorError.self) { try unit.requestFreeze() }
    }

    /// A process that won't die keeps the cgroup busy: rmdir fails with EBUSY, and the unit
    /// still lets go of its descriptors instead of hanging or crashing.
    @Test func aCgroupThatStaysBusyIsLeftAfterABriefWait() throws {
        let unit = try makeUnit()
        kernel.processes[500]?.survivesSIGKILL = true
        unit.remove()
        #expect(kernel.directories.contains(Self.directory))
        #expect(kernel.calls.last == .removeDirectory(Self.directory))
        #expect(kernel.openDescriptors.isEmpty)
    }

    /// CPU time from `cpu.stat`, memory from `memory.current`; without the memory controller,
    /// the resident sets of the processes.
    @Test func usageComesFromTheCgroupFilesAndElseFromProc() throws {
        let unit = try makeUnit()
        #expect(unit.resourceUsage() == nil, "usage without cpu.stat")
        kernel.files[Self.directory + "/cpu.stat"] = "usage_usec 12500\nuser_usec 10000\nsystem_usec 2500\n"
        kernel.files[Self.directory + "/memory.current"] = "4096000\n"
        #expect(unit.resourceUsage() == ResourceUsage(rssKB: 4000, cpuMS: 12.5))
        kernel.files[Self.directory + "/memory.current"] = nil
        #expect(unit.resourceUsage() == ResourceUsage(rssKB: 250 * ProcFS.pageSize / 1024, cpuMS: 12.5))
    }

    @Test func aFileThatCanNotBeOpenedUndoesTheUnit() {
        kernel.addCgroupV2(Self.directory)
        kernel.openFailures[Self.directory + "/cgroup.events"] = .permissionDenied
        #expect(throws: SupervisorError.self) {
            try CgroupV2Unit(directory: Self.directory, childName: "worker", inotifyFD: Self.inotifyFD, system: kernel)
        }
        #expect(!kernel.directories.contains(Self.directory))
        #expect(kernel.openDescriptors.isEmpty, "the directory or cgroup.freeze was left open")
    }
}
