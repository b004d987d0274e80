import Glibc
import SystemPackage
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// Making and removing the cgroup freezers' own cgroups, and sweeping stale ones, against a
/// ``FakeKernel``. No root.
@Suite(.timeLimit(.minutes(5))) struct CgroupFreezerSetupTests {
    static let v2 = CgroupLocation(mountPoint: "/sys/fs/cgroup", directory: "/sys/fs/cgroup/app.service")
    static let v1 = CgroupLocation(mountPoint: "/sys/fs/cgroup/freezer", directory: "/sys/fs/cgroup/freezer/app")

    let kernel = FakeKernel()

    init() {
        kernel.addCgroupV2(Self.v2.directory)
        kernel.addCgroupV1(Self.v1.directory)
    }

    private func name(_ token: UInt64) -> String {
        SupervisorCgroupName.make(pid: 42, token: token)
    }

    /// A name taken, one a sweep holds locked, and one a sweep removed between its making and
    /// its locking are each passed over for the next.
    @Test func aSupervisorCgroupPassesOverNamesItCanNotHoldAsItsOwn() throws {
        let parent = Self.v2.directory + "/"
        kernel.addCgroupV2(parent + name(1))
        kernel.lockedElsewhere = [parent + name(2)]
        kernel.afterMakingDirectory = { path in
            if path == parent + self.name(3) { _ = self.kernel.removeDirectory(path) }
        }
        var names = (1...4).map(name)
        let cgroup = try SupervisorCgroup(in: Self.v2, version: .v2, system: kernel) { names.removeFirst() }
        #expect(cgroup.directory == parent + name(4))
        #expect(kernel.lockedDirectories == [parent + name(4)])
        #expect(kernel.directories.contains(parent + name(1)), "a directory it did not make was removed")
        cgroup.remove()
        #expect(kernel.lockedDirectories.isEmpty && !kernel.directories.contains(parent + name(4)))
    }

    @Test func aSupervisorCgroupGivesUpAfterEightNamesInARow() {
        kernel.lockedElsewhere = Set((1...8).map { Self.v2.directory + "/" + name($0) })
        var names = (1...8).map(name)
        #expect(throws: FreezerUnusable.self) {
            try SupervisorCgroup(in: Self.v2, version: .v2, system: kernel) { names.removeFirst() }
        }
    }

    /// Each child's cgroup is named after it, numbered, never reusing a name taken. A cgroup
    /// someone else made in the supervisor's keeps it busy (EBUSY): it is left, unlocked, to a sweep.
    @Test func cgroupV2UnitsAreNumberedAndRemovedWithTheFreezer() throws {
        let freezer = try CgroupV2Freezer(location: Self.v2, system: kernel)
        #expect(freezer.directory.hasPrefix(Self.v2.directory + "/supervise-"))
        kernel.addCgroupV2(freezer.directory + "/my_worker.2")
        let first = try freezer.makeUnit(for: "my worker")
        let second = try freezer.makeUnit(for: "my worker")
        #expect(first.cgroupPath == freezer.directory + "/my_worker.1")
        #expect(second.cgroupPath == freezer.directory + "/my_worker.3")
        freezer.removeAll()
        #expect(!kernel.directories.contains(first.cgroupPath ?? "") && !kernel.directories.contains(second.cgroupPath ?? ""))
        #expect(kernel.directories.contains(freezer.directory + "/my_worker.2") && kernel.directories.contains(freezer.directory))
        #expect(kernel.calls.last == .removeDirectory(freezer.directory))
        #expect(kernel.openDescriptors.isEmpty, "a cgroup file or the inotify instance was left open")
        #expect(kernel.lockedDirectories.isEmpty)
    }

    /// Before Linux 5.2 there is no `cgroup.freeze`: the cgroup made is removed and unlocked again.
    @Test func cgroupV2WithoutCgroupFreezeIsUnusableAndLeavesNothing() {
        kernel.afterMakingDirectory = { self.kernel.files[$0 + "/cgroup.freeze"] = nil }
        do {
            _ = try CgroupV2Freezer(location: Self.v2, system: kernel)
            Issue.record("a cgroup without cgroup.freeze was used")
        } catch {
            #expect(error.reason.contains("no cgroup.freeze"))
        }
        #expect(kernel.directories == [Self.v2.directory, Self.v1.directory])
        #expect(kernel.lockedDirectories.isEmpty)
    }

    @Test func aCgroupThatCanNotBeWrittenIsUnusableWithTheReason() {
        kernel.accessFailures[Self.v1.directory + "/cgroup.procs"] = .permissionDenied
        do {
            _ = try CgroupV1Freezer(location: Self.v1, system: kernel)
            Issue.record("an unwritable cgroup was used")
        } catch {
            #expect(error.reason == "cgroup v1 freezer at \(Self.v1.directory) is not writable: permission denied "
                    + "(cgroup.procs can't be written)")
        }
        #expect(kernel.calls.isEmpty)
    }

    @Test func cgroupV1UnitsAreRemovedWithTheFreezer() throws {
        let freezer = try CgroupV1Freezer(location: Self.v1, system: kernel)
        let unit = try freezer.makeUnit(for: "w")
        #expect(unit.cgroupPath == freezer.directory + "/w.1")
        freezer.removeAll()
        #expect(kernel.directories == [Self.v2.directory, Self.v1.directory])
        #expect(kernel.openDescriptors.isEmpty && kernel.lockedDirectories.isEmpty)
    }

    /// A stale cgroup is killed, thawed and removed; one whose processes won't die is left, rmdir
    /// answering EBUSY, with a line naming them; a locked one, or a bare one, goes without a line.
    @Test func theSweepKillsThawsAndRemovesOnlyWhatNoSupervisorHolds() {
        let parent = Self.v2.directory
        let (stale, stuck, held, bare) = (parent + "/" + name(1), parent + "/" + name(2), parent + "/" + name(3), parent + "/" + name(4))
        for cgroup in [stale, stale + "/w.1", stuck, held, bare] { kernel.addCgroupV2(cgroup) }
        kernel.addProcess(700, in: stale + "/w.1")
        kernel.addProcess(701, in: stuck)
        kernel.processes[701]?.survivesSIGKILL = true
        kernel.addProcess(702, in: held)
        kernel.lockedElsewhere = [held]

        let lines = StaleCgroupSweeper.sweep([(.v2, parent)], system: kernel)

        #expect(lines.sorted() == [
            "could not remove stale cgroup \(stuck), whose supervisor is gone: 1 processes would not die (701); "
                + "kill them and rmdir it by hand",
            "removed 1 stale cgroup of supervisors that are gone (killed 1 processes)",
        ])
        #expect(!kernel.directories.contains(stale) && !kernel.directories.contains(bare))
        #expect(kernel.directories.contains(stuck) && kernel.directories.contains(held))
        #expect(kernel.writes(to: stale + "/w.1/cgroup.freeze") == ["0"], "the stale cgroup's child was not thawed")
        #expect(kernel.processes[702] != nil && kernel.writes(to: held + "/cgroup.kill").isEmpty,
                "a process of a held cgroup was killed")
        #expect(kernel.lockedDirectories.isEmpty)
    }

    /// v1 has no `cgroup.kill`: each process is SIGKILLed, and each cgroup thawed so it can die.
    @Test func aStaleV1CgroupIsSignalledAndThawed() {
        let stale = Self.v1.directory + "/" + name(1)
        kernel.addCgroupV1(stale)
        kernel.addProcess(710, in: stale)
        let lines = StaleCgroupSweeper.sweep([(.v1Freezer, Self.v1.directory)], system: kernel)
        #expect(lines == ["removed 1 stale cgroup of supervisors that are gone (killed 1 processes)"])
        #expect(kernel.signals.map(\.pid) == [710] && kernel.signals.allSatisfy { $0.signal == SIGKILL })
        #expect(kernel.writes(to: stale + "/freezer.state") == ["THAWED"])
    }
}
