import Foundation
import Glibc
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport

// What FreezerProcessTests spawn and look at: real process trees, sleepers, stale cgroups.

func usable(_ choice: FreezerChoice) -> Bool {
    guard let (freezer, _) = try? FreezerSelection.select(choice, locate: CgroupSystem.locate) else { return false }
    freezer.removeAll()
    return true
}

/// Waits as the event loop does: on the notification descriptor when there is one
/// (each wake-up followed by a direct read), else on a back-off. Once frozen, a late
/// (rate-limited) notification may still come: after it, draining must leave nothing to read.
func waitFrozen(_ unit: any FreezerUnit) -> Bool {
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

/// Ends a turn of the loop, as the supervisor does before each wait (the sigstop freezer's
/// budget of work is per turn), then asks whether `unit` is frozen.
func turnFrozen(_ freezer: any Freezer, _ unit: any FreezerUnit) -> Bool {
    freezer.endMoment()
    return unit.isFrozen()
}

func spawn(_ arguments: [String], stdin: Int32? = nil, newGroup: Bool = false) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
    try closeInheritedDescriptors(&actions)
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

func isGone(_ pid: Int32) -> Bool {
    ProcFS().stat(pid)?.isDead ?? true
}

/// A child shell, in its own process group, that forks three grandchildren: a `sleep` in the
/// background, a double-forked `sleep`, and a counter loop that leaves the group with `setsid`.
/// It and the setsid'd loop each rewrite a counter file every 10 ms.
final class ProcessTree {
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
        // A cgroup v2 unit gives its directory: its cgroup.procs, as the spawner's fork fallback opens it.
        let opened = unit.placementFD == nil ? unit.placementDirectoryFD.map { openat($0, "cgroup.procs", O_WRONLY | O_CLOEXEC) } : nil
        defer { if let opened, opened >= 0 { close(opened) } }
        if let placement = unit.placementFD ?? opened {
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

    /// Whether the counter file changes within 10 s: the main counter starts only after a busy
    /// loop, and on a loaded machine (8 integration tests beside this one) a second was not
    /// enough for it to start (CI: cgroup2FreezesThawsAndKillsTheWholeTree). A running counter
    /// moves every 10 ms, so the wait is that short whenever the check passes.
    func progresses(_ counter: String) -> Bool {
        let first = read(counter)
        return eventually(timeout: 10) { read(counter) != first }
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
final class Sleeper {
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
final class StaleCgroup {
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
