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
            try #require(eventually(timeout: 5) { unit.isFrozen() })
            let running = tree.descendants().filter { pid in ProcFS().threadStats(pid).contains { !"TtDZ".contains($0.state) } }
            #expect(running.isEmpty, "frozen was reported while these ran: \(running)")
            try unit.thaw()
        }
        try unit.requestFreeze()
        try #require(eventually(timeout: 5) { unit.isFrozen() })
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
        for cgroup in stale {
            #expect(lines.contains("removed stale cgroup \(cgroup.directory): its supervisor is gone (killed 1 processes)"), "\(lines)")
            #expect(!FileManager.default.fileExists(atPath: cgroup.directory))
            #expect(eventually(timeout: 5) { cgroup.sleeper.isGone() }, "the frozen sleeper of \(cgroup.directory) survived")
        }
        #expect(lines.count == stale.count, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: bare), "a bare unlocked cgroup was left")
        #expect(FileManager.default.fileExists(atPath: live.directory), "the sweep removed a live supervisor's cgroup")
        #expect(FileManager.default.fileExists(atPath: legacy.directory) && !legacy.sleeper.isGone(),
                "the sweep touched a legacy cgroup: \(lines)")
    }
}

private func usable(_ choice: FreezerChoice) -> Bool {
    guard let (freezer, _) = try? FreezerSelection.select(choice, locate: CgroupSystem.locate) else { return false }
    freezer.removeAll()
    return true
}

/// Waits as the event loop does: on the notification descriptor when there is one
/// (each wake-up followed by a direct read), else on a back-off. Once frozen, a late
/// (rate-limited) notification may still come: after it, draining must leave nothing to read.
private func waitFrozen(_ unit: any FreezerUnit) -> Bool {
    guard let fd = unit.notificationFD else { return eventually(timeout: 5) { unit.isFrozen() } }
    if unit.isFrozen() { return true }
    for _ in 0..<10 {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 2_000)
        unit.drainNotification()
        if unit.isFrozen() {
            #expect(ready == 1, "frozen without a notification")
            usleep(100_000)  // The point: room for a late, rate-limited notification to arrive.
            unit.drainNotification()
            var drained = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&drained, 1, 0) == 0, "drainNotification left the descriptor readable")
            return true
        }
    }
    return false
}

private func spawn(_ arguments: [String], stdin: Int32? = nil, newGroup: Bool = false) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | (newGroup ? POSIX_SPAWN_SETPGROUP : 0)))
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
    return pid
}

private func isGone(_ pid: Int32) -> Bool {
    ProcFS().stat(pid)?.isDead ?? true
}

/// A child shell, in its own process group, that forks three grandchildren: a `sleep` in the
/// background, a double-forked `sleep`, and a counter loop that leaves the group with `setsid`.
/// It and the setsid'd loop each rewrite a counter file every 10 ms.
private final class ProcessTree {
    static let script = """
        read go
        sleep 100 & echo $! >> "$1/pids"
        (sleep 100 & echo $! >> "$1/pids")
        setsid sh -c 'echo $$ > "$1/outside.pid"; i=0; while :; do i=$((i+1)); echo $i > "$1/outside"; sleep 0.01; done' sh "$1" &
        i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done
        i=0; while :; do i=$((i+1)); echo $i > "$1/main"; sleep 0.01; done
        """

    let pid: Int32
    /// Where the tree's script writes its pids and counters.
    private let temporary: TemporaryDirectory
    var directory: String { temporary.path }
    private var reaped = false

    /// Spawns the tree and places it in `unit` before it runs its script, as the spawner does.
    static func spawn(into unit: any FreezerUnit) throws -> ProcessTree {
        let temporary = TemporaryDirectory(prefix: "freezer-tree")
        var gate: [Int32] = [0, 0]
        guard pipe(&gate) == 0 else { throw POSIXError(.EMFILE) }
        defer { close(gate[1]) }
        let pid: Int32
        do {
            defer { close(gate[0]) }
            pid = try SuperviseSystemTests.spawn(["/bin/sh", "-c", script, "sh", temporary.path], stdin: gate[0], newGroup: true)
        }
        if let placement = unit.placementFD {
            let text = "\(pid)"
            #expect(pwrite(placement, text, text.utf8.count, 0) == text.utf8.count, "placing the child failed: errno \(errno)")
        }
        unit.attach(pid: pid)
        _ = write(gate[1], "go\n", 3)
        return ProcessTree(pid: pid, temporary: temporary)
    }

    private init(pid: Int32, temporary: TemporaryDirectory) {
        self.pid = pid
        self.temporary = temporary
    }

    var outsidePID: Int32? { Int32(read("outside.pid").trimmingCharacters(in: .whitespacesAndNewlines)) }
    var groupGrandchildren: [Int32] { read("pids").split(separator: "\n").compactMap { Int32($0) } }
    var everyPID: [Int32] { [pid] + groupGrandchildren + [outsidePID].compactMap { $0 } }

    func waitForGrandchildren() -> Bool {
        eventually(timeout: 10) { groupGrandchildren.count == 2 && outsidePID != nil }
    }

    /// Whether the counter file changes within a second.
    func progresses(_ counter: String) -> Bool {
        let first = read(counter)
        return eventually(timeout: 1) { read(counter) != first }
    }

    /// Whether the counter file stays the same for 300 ms.
    func isStill(_ counter: String) -> Bool {
        let first = read(counter)
        usleep(300_000)  // The point: a window in which a running counter would move.
        return read(counter) == first
    }

    /// The child and every process below it now, by parent links.
    func descendants() -> [Int32] {
        var found: [Int32] = []
        var pending = [pid]
        let parents = Dictionary(ProcFS().allPIDs().compactMap { pid in ProcFS().stat(pid).map { (pid, $0.parent) } }) { first, _ in first }
        while let next = pending.popLast() {
            found.append(next)
            pending += parents.filter { $0.value == next }.map(\.key)
        }
        return found
    }

    func survivors() -> [Int32] { everyPID.filter { !isGone($0) } }
    func allGone() -> Bool { survivors().isEmpty }

    func reapChild() {
        guard !reaped else { return }
        var status: Int32 = 0
        reaped = eventually(timeout: 5) { waitpid(pid, &status, WNOHANG) == pid }
    }

    /// Kills whatever is left (a failed test must not leave frozen or running processes) and reaps the child.
    func cleanUp() {
        for pid in everyPID { kill(pid, SIGKILL) }
        for pid in everyPID { kill(pid, SIGCONT) }
        reapChild()
        temporary.remove()
    }

    private func read(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }
}

/// A `sleep` that is not a supervisor.
private final class Sleeper {
    let pid: Int32

    init() throws {
        pid = try spawn(["/usr/bin/sleep", "100"])
    }

    func isGone() -> Bool { SuperviseSystemTests.isGone(pid) }

    func stop() {
        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// A supervisor's `NAME/worker.1` cgroup as a SIGKILLed supervisor leaves it: unlocked, a frozen sleeper inside.
private final class StaleCgroup {
    let directory: String
    let sleeper: Sleeper
    private let version: CgroupVersion

    init(parent: String, name: String, version: CgroupVersion) throws {
        directory = parent + "/" + name
        self.version = version
        let worker = directory + "/worker.1"
        try #require(mkdir(directory, 0o755) == 0 && mkdir(worker, 0o755) == 0, "mkdir \(worker): errno \(errno)")
        sleeper = try Sleeper()
        try FileIO.write("\(sleeper.pid)", toFile: worker + "/cgroup.procs").get()
        switch version {
        case .v2:
            try FileIO.write("1", toFile: worker + "/cgroup.freeze").get()
            try #require(eventually(timeout: 5) {
                (try? FileIO.readFile(worker + "/cgroup.events").get())?.contains("frozen 1") == true
            })
        case .v1Freezer:
            try FileIO.write("FROZEN", toFile: worker + "/freezer.state").get()
            try #require(eventually(timeout: 5) {
                (try? FileIO.readFile(worker + "/freezer.state").get())?.hasPrefix("FROZEN") == true
            })
        }
    }

    /// Undoes what the sweep should have done, when it did not.
    func cleanUp() {
        let thaw = version == .v2 ? ("cgroup.freeze", "0") : ("freezer.state", "THAWED")
        _ = FileIO.write(thaw.1, toFile: directory + "/worker.1/" + thaw.0)
        sleeper.stop()
        _ = CgroupTree().remove(directory)
    }
}
