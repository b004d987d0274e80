import Foundation
import Glibc
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport

/// Real children, really frozen: one test per backend, plus selection and sweeping.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct FreezerProcessTests {
    static let cgroup2Usable = usable(.cgroup2)
    static let cgroup1Usable = usable(.cgroup1)
    static let needsRootReason = "needs root or a delegated cgroup; run swift test as root to cover it"
    static let cgroup2Missing = cgroup2Usable ? nil : "cgroup v2 is not usable here: \(needsRootReason)"
    static let cgroup1Missing = cgroup1Usable ? nil : "the cgroup v1 freezer is not usable here: \(needsRootReason)"

    @Test(.skip("cgroup2", because: cgroup2Missing, in: "FreezerProcessTests"))
    func cgroup2FreezesThawsAndKillsTheWholeTree() throws {
        try exerciseWholeTree(.cgroup2)
    }

    @Test(.skip("cgroup1", because: cgroup1Missing, in: "FreezerProcessTests"))
    func cgroup1FreezesThawsAndKillsTheWholeTree() throws {
        try exerciseWholeTree(.cgroup1)
    }

    /// Freeze, verify, thaw, verify, freeze again and kill while frozen (v1: the thaw-after-kill path).
    private func exerciseWholeTree(_ choice: FreezerChoice) throws {
        let (freezer, _) = try FreezerSelection.make(choice)
        defer { freezer.removeAll() }
        let unit = try freezer.makeUnit(for: "tree test")
        let path = try #require(unit.cgroupPath)
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        #expect(SupervisorCgroupName.matches(parent) && parent.hasPrefix("supervise-\(getpid())-"), "\(path)")
        #expect(path.hasSuffix("/tree_test.1"))
        #expect(unit.kind.rawValue == choice.rawValue)
        let tree = try ProcessTree.spawn(into: unit)
        defer { tree.cleanUp() }
        try #require(tree.waitForGrandchildren())
        #expect(tree.progresses("main") && tree.progresses("outside"))

        try unit.requestFreeze()
        try #require(waitFrozen(unit), "the unit never reported frozen")
        #expect(tree.isStill("main"), "the child kept running while frozen")
        #expect(tree.isStill("outside"), "the grandchild that left the process group kept running while frozen")
        if let usage = unit.resourceUsage() {
            #expect(usage.cpuMS > 0 && usage.rssKB > 0)
        } else {
            Issue.record("no resource usage for \(choice)")
        }

        try unit.thaw()
        #expect(!unit.isFrozen())
        #expect(tree.progresses("main") && tree.progresses("outside"))

        try unit.requestFreeze()
        try #require(waitFrozen(unit))
        unit.killAll()
        #expect(eventually(timeout: 5) { unit.isEmpty() }, "processes survived killAll of a frozen unit")
        #expect(tree.allGone(), "left alive: \(tree.survivors())")

        unit.remove()
        #expect(!FileManager.default.fileExists(atPath: path))
        unit.remove()
    }

    @Test(.skip("cgroup2", because: cgroup2Missing, in: "FreezerProcessTests"))
    func cgroup2RemoveAllLeavesNothingBehind() throws {
        try removeAllLeavesNothingBehind(.cgroup2)
    }

    @Test(.skip("cgroup1", because: cgroup1Missing, in: "FreezerProcessTests"))
    func cgroup1RemoveAllLeavesNothingBehind() throws {
        try removeAllLeavesNothingBehind(.cgroup1)
    }

    /// A frozen process still in a unit when the supervisor exits is killed, and every cgroup removed.
    private func removeAllLeavesNothingBehind(_ choice: FreezerChoice) throws {
        let (freezer, _) = try FreezerSelection.make(choice)
        let unit = try freezer.makeUnit(for: "left")
        let path = try #require(unit.cgroupPath)
        let sleeper = try Sleeper()
        defer { sleeper.stop() }
        try FileIO.write("\(sleeper.pid)", toFile: path + "/cgroup.procs").get()
        unit.attach(pid: sleeper.pid)
        try unit.requestFreeze()
        try #require(eventually(timeout: 5) { unit.isFrozen() })

        freezer.removeAll()
        #expect(sleeper.isGone(), "a frozen process outlived removeAll")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: String(path[..<path.lastIndex(of: "/")!])))
        freezer.removeAll()
    }

    /// Without a subreaper (this test process is none) an orphan never seen before goes to
    /// init, out of reach: the double-forked `sleep` is orphaned before the first scan. What
    /// stays linked to the child by parent links is frozen, thawed, signalled and killed.
    @Test func sigstopStopsTheTreeEvenWhatLeftTheGroup() throws {
        let (freezer, notes) = try FreezerSelection.make(.sigstop)
        defer { freezer.removeAll() }
        #expect(notes.last?.hasPrefix("sigstop: usable") == true)
        let unit = try freezer.makeUnit(for: "stopped")
        #expect(unit.cgroupPath == nil && unit.placementFD == nil && unit.notificationFD == nil)
        let tree = try ProcessTree.spawn(into: unit)
        defer { tree.cleanUp() }
        try #require(tree.waitForGrandchildren())
        let linked = [tree.pid, tree.groupGrandchildren[0], tree.outsidePID].compactMap { $0 }

        // Both loops fork a `sleep` every 10 ms: each freeze races with forks.
        for _ in 0..<20 {
            try unit.requestFreeze()
            try #require(eventually(timeout: 5) { turnFrozen(freezer, unit) })
            let running = tree.descendants().filter { pid in ProcFS().threadStats(pid).contains { !"TtDZ".contains($0.state) } }
            #expect(running.isEmpty, "frozen was reported while these ran: \(running)")
            try unit.thaw()
        }
        try unit.requestFreeze()
        try #require(eventually(timeout: 5) { turnFrozen(freezer, unit) })
        #expect(linked.allSatisfy { ProcFS().threadStats($0).allSatisfy { "TtD".contains($0.state) } })
        #expect(tree.isStill("main"))
        #expect(tree.isStill("outside"), "the loop that left the process group kept running")

        try unit.thaw()
        #expect(!unit.isFrozen())
        #expect(tree.progresses("main") && tree.progresses("outside"))

        unit.killAll()
        tree.reapChild()
        #expect(eventually(timeout: 5) { unit.isEmpty() })
        #expect(tree.survivors() == [tree.groupGrandchildren[1]], "only the sleep orphaned to init survives")
        unit.remove()
    }

    @Test func autoPicksTheFirstUsableAndExplicitChoicesAreHonoured() throws {
        let (auto, notes) = try FreezerSelection.make(.auto)
        defer { auto.removeAll() }
        let expected: FreezerKind = Self.cgroup2Usable ? .cgroup2 : Self.cgroup1Usable ? .cgroup1 : .sigstop
        #expect(auto.kind == expected)
        #expect(notes.contains { $0.hasPrefix("\(expected.rawValue)") && $0.contains("usable") }, "\(notes)")
        if let v2 = auto as? CgroupV2Freezer {
            #expect(FileManager.default.fileExists(atPath: v2.directory))
            auto.removeAll()
            #expect(!FileManager.default.fileExists(atPath: v2.directory))
        }
        for choice in [FreezerChoice.cgroup2, .cgroup1, .sigstop] where usable(choice) {
            let (freezer, _) = try FreezerSelection.make(choice)
            #expect(freezer.kind.rawValue == choice.rawValue)
            freezer.removeAll()
        }
    }

    @Test func autoSaysWhyItPassedOverAndAnExplicitChoiceIsRefused() throws {
        let noV2: (CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> = { version in
            version == .v2 ? .failure(FreezerUnusable("no cgroup v2 hierarchy is mounted"))
                : .failure(FreezerUnusable("no cgroup v1 freezer hierarchy is mounted"))
        }
        let (freezer, notes) = try FreezerSelection.select(.auto, locate: noV2)
        #expect(freezer.kind == .sigstop)
        #expect(notes == ["cgroup2 passed over: no cgroup v2 hierarchy is mounted",
                          "cgroup1 passed over: no cgroup v1 freezer hierarchy is mounted",
                          "sigstop: usable; each child's tree is followed by its parent links in /proc, and its processes can see the stop"])
        let error = #expect(throws: SupervisorError.self) { try FreezerSelection.select(.cgroup2, locate: noV2) }
        #expect(error?.code == .freezerUnavailable)
        #expect(error?.message.hasPrefix("--freezer cgroup2 can't be used here: no cgroup v2 hierarchy is mounted;") == true)
    }

    @Test func aLocationThatIsNotACgroupIsRefusedWithTheReason() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-freezer")
        defer { temporary.remove() }
        let directory = temporary.path
        let error = #expect(throws: SupervisorError.self) {
            try FreezerSelection.select(.cgroup2) { _ in .success(CgroupLocation(mountPoint: directory, directory: directory)) }
        }
        #expect(error?.message.contains("cgroup v2 at \(directory) is not writable: no such file or directory") == true)
    }

    /// Two supervisors that pick one name (as pids repeat across namespaces) must not share a cgroup.
    /// The taken directory has a name no sweep judges, so it stays taken throughout.
    @Test(.skip("cgroup2", because: cgroup2Missing, in: "FreezerProcessTests"))
    func aSupervisorCgroupNeverReusesADirectoryAndHoldsItsLock() throws {
        let location = try CgroupSystem.locate(.v2).get()
        let taken = "supervise-test-taken-\(UUID())", fresh = SupervisorCgroupName.random(pid: 1)
        let takenPath = location.directory + "/" + taken
        try #require(mkdir(takenPath, 0o755) == 0, "mkdir \(takenPath): errno \(errno)")
        defer { rmdir(takenPath) }

        var names = [taken, fresh]
        let cgroup = try SupervisorCgroup(in: location, version: .v2) { names.removeFirst() }
        defer { cgroup.remove() }
        #expect(cgroup.directory == location.directory + "/" + fresh)
        #expect(try CgroupDirectoryLock.acquire(cgroup.directory).get() == nil, "its own cgroup is not locked")
        cgroup.remove()
        #expect(!FileManager.default.fileExists(atPath: cgroup.directory))
        #expect(FileManager.default.fileExists(atPath: takenPath), "it removed a directory it did not make")
    }

    /// A cgroup in the current form that no one holds locked is a dead supervisor's (removed quietly when
    /// bare); a locked one and an older build's `supervise-PID` stay. All of them are made in a parent
    /// cgroup of this test's own, where no other supervisor's sweep (the integration tests') looks.
    @Test(.skip("cgroup2 and cgroup1", because: cgroup2Missing ?? cgroup1Missing, in: "FreezerProcessTests"))
    func sweeperRemovesOnlyUnlockedCgroupsOfTheCurrentForm() throws {
        let v2 = try CgroupSystem.locate(.v2).get().directory + "/supervise-test-sweep-\(UUID())"
        let v1 = try CgroupSystem.locate(.v1Freezer).get().directory + "/supervise-test-sweep-\(UUID())"
        try #require(mkdir(v2, 0o755) == 0 && mkdir(v1, 0o755) == 0, "mkdir: errno \(errno)")
        defer { for parent in [v2, v1] { _ = CgroupTree().remove(parent) } }
        let live = try SupervisorCgroup(in: CgroupLocation(mountPoint: v2, directory: v2), version: .v2)
        defer { live.remove() }
        let stale = [
            try StaleCgroup(parent: v2, name: SupervisorCgroupName.random(pid: 1), version: .v2),
            try StaleCgroup(parent: v1, name: SupervisorCgroupName.random(pid: 1), version: .v1Freezer),
        ]
        let legacy = try StaleCgroup(parent: v2, name: "supervise-1", version: .v2)
        defer { for cgroup in stale + [legacy] { cgroup.cleanUp() } }
        let bare = v2 + "/" + SupervisorCgroupName.random(pid: 1)
        try #require(mkdir(bare, 0o755) == 0, "mkdir \(bare): errno \(errno)")
        defer { rmdir(bare) }

        let lines = StaleCgroupSweeper.sweep([(.v2, v2), (.v1Freezer, v1)])
        // One line for them all, however many there were (other users' supervisors' on a shared
        // machine); a supervisor killed beside this test may add its own to the count.
        let removed = lines.first?.wholeMatch(of: /removed (\d+) stale cgroups of supervisors that are gone \(killed \d+ processes\)/)
        #expect(lines.count == 1 && (removed.flatMap { Int($0.1) } ?? 0) >= stale.count, "\(lines)")
        for cgroup in stale {
            #expect(!FileManager.default.fileExists(atPath: cgroup.directory))
            #expect(eventually(timeout: 5) { cgroup.sleeper.isGone() }, "the frozen sleeper of \(cgroup.directory) survived")
        }
        #expect(!FileManager.default.fileExists(atPath: bare), "a bare unlocked cgroup was left")
        #expect(FileManager.default.fileExists(atPath: live.directory), "the sweep removed a live supervisor's cgroup")
        #expect(FileManager.default.fileExists(atPath: legacy.directory) && !legacy.sleeper.isGone(),
                "the sweep touched a legacy cgroup: \(lines)")
    }
}
