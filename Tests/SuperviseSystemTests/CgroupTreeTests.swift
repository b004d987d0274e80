import Glibc
import SystemPackage
import Testing
@testable import SuperviseSystem

/// Removing and signalling a tree of cgroups, against a ``FakeKernel``.
@Suite(.timeLimit(.minutes(5))) struct CgroupTreeTests {
    static let top = "/sys/fs/cgroup/supervise-1-00000000000000ab"

    let kernel = FakeKernel()

    /// rmdir of a cgroup that holds a process answers EBUSY: the error comes back and the
    /// parents, busy as well, are not tried.
    @Test func aBusyCgroupStopsTheRemovalWithItsError() {
        for cgroup in [Self.top, Self.top + "/a", Self.top + "/b", Self.top + "/b/inner"] { kernel.addCgroupV2(cgroup) }
        kernel.addProcess(700, in: Self.top + "/b/inner")
        let result = CgroupTree(kernel).remove(Self.top)
        guard case .failure(let error) = result else {
            Issue.record("a cgroup holding a process was reported removed")
            return
        }
        #expect(error == .resourceBusy)
        #expect(!kernel.directories.contains(Self.top + "/a"))
        #expect(kernel.directories.contains(Self.top + "/b/inner") && kernel.directories.contains(Self.top))
        #expect(!kernel.calls.contains(.removeDirectory(Self.top)) && !kernel.calls.contains(.removeDirectory(Self.top + "/b")))
    }

    @Test func childrenGoBeforeTheirParentAndAMissingOneCountsAsRemoved() throws {
        for cgroup in [Self.top, Self.top + "/a", Self.top + "/a/inner"] { kernel.addCgroupV2(cgroup) }
        try CgroupTree(kernel).remove(Self.top).get()
        #expect(kernel.calls == [.removeDirectory(Self.top + "/a/inner"), .removeDirectory(Self.top + "/a"),
                                 .removeDirectory(Self.top)])
        try CgroupTree(kernel).remove(Self.top).get()
    }

    /// A process that is exiting stays listed in `cgroup.procs` while kill(2) already answers
    /// ESRCH: it is signalled once, the others still are, and the round ends.
    @Test func aListedProcessAlreadyGoneIsSignalledOnceAndTheRoundEnds() {
        kernel.addCgroupV2(Self.top)
        for pid: Int32 in [700, 701, 702] { kernel.addProcess(pid, in: Self.top) }
        kernel.upcomingKillFailures[701] = Array(repeating: .noSuchProcess, count: 100)
        CgroupTree(kernel).signalTree(Self.top, SIGHUP)
        #expect(kernel.signals.map(\.pid) == [700, 701, 702])
        #expect(CgroupTree(kernel).signalEvery(Self.top, SIGTERM) == 3)
    }
}
