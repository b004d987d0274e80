#if os(Linux)
import Glibc
import SystemPackage

/// Freezes a child's process group with SIGSTOP. Needs nothing, but misses processes that
/// leave the group (`setsid`, daemons), and the child's parent sees it stop.
public final class SignalStopFreezer: Freezer {
    public let kind = FreezerKind.sigstop
    private var units: [SignalStopUnit] = []

    public init() {}

    public func makeUnit(for childName: String) throws(SupervisorError) -> any FreezerUnit {
        let unit = SignalStopUnit(childName: childName)
        units.append(unit)
        return unit
    }

    public func removeAll() {
        for unit in units { unit.remove() }
        units.removeAll()
    }
}

/// One child's process group, stopped and continued with signals.
final class SignalStopUnit: FreezerUnit {
    let kind = FreezerKind.sigstop
    let childName: String
    let cgroupPath: String? = nil
    let placementFD: Int32? = nil
    let placementDirectoryFD: Int32? = nil
    let notificationFD: Int32? = nil

    private var group: Int32?
    private var removed = false
    /// The group's processes as last found by a scan of all of /proc (which costs milliseconds):
    /// while a freeze is being verified only they are re-read, and one more scan confirms once
    /// they are all stopped (a stopped process can't fork a new member).
    private var members: [Int32]?

    init(childName: String) {
        self.childName = childName
    }

    func attach(pid: Int32) {
        group = pid
    }

    func requestFreeze() throws(SupervisorError) {
        members = nil
        try send(SIGSTOP, doing: "freeze")
    }

    /// Whether every thread of every process in the group is stopped (or already dead).
    func isFrozen() -> Bool {
        guard let group else { return true }
        if let members, !members.allSatisfy({ Self.isHalted($0, orOutside: group) }) { return false }
        let found = ProcFS.members(ofGroup: group)
        members = found
        return found.allSatisfy { Self.isHalted($0, orOutside: group) }
    }

    /// Whether every thread of `pid` is stopped or dead, or `pid` is no longer in `group`.
    ///
    /// A thread in `vfork` waiting for its child counts as halted: dash runs commands with
    /// vfork, and when SIGSTOP stops the child before its exec the parent waits in `D`
    /// state, unable to run, until it is continued (the child is a member, checked itself).
    private static func isHalted(_ pid: Int32, orOutside group: Int32) -> Bool {
        FileIO.subdirectories(of: "/proc/\(pid)/task").allSatisfy { thread in
            guard let stat = (try? FileIO.readFile("/proc/\(pid)/task/\(thread)/stat").get()).flatMap(ProcFS.parseStat)
            else { return true }
            if stat.isHalted || stat.processGroup != group { return true }
            guard stat.state == "D" else { return false }
            let waitingIn = (try? FileIO.readFile("/proc/\(pid)/task/\(thread)/wchan").get()) ?? ""
            return vforkWaits.contains(waitingIn)
        }
    }

    /// Where the kernel parks a vfork parent (`/proc/PID/wchan`), across kernel versions.
    private static let vforkWaits: Set<String> = ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]

    func drainNotification() {}

    /// Continues the group and verifies that the processes it stopped run again.
    func thaw() throws(SupervisorError) {
        try send(SIGCONT, doing: "thaw")
        guard let group else { return }
        let stopped = members ?? ProcFS.members(ofGroup: group)
        let running = waitBriefly(upTo: .seconds(1)) {
            stopped.allSatisfy { pid in ProcFS.threadStats(pid).allSatisfy { !"Tt".contains($0.state) } }
        }
        guard running else {
            throw SupervisorError(.freezer, "could not thaw child \(childName): processes of group \(group) "
                                  + "are still stopped 1 s after SIGCONT")
        }
    }

    func signalTree(_ signal: Int32) {
        if let group { kill(-group, signal) }
    }

    /// SIGKILLs the process group (a stopped process dies of SIGKILL too).
    func killAll() {
        signalTree(SIGKILL)
    }

    /// Whether the group is gone, or holds only zombies waiting to be reaped.
    func isEmpty() -> Bool {
        guard let group else { return true }
        if kill(-group, 0) == -1 && errno == ESRCH { return true }
        return ProcFS.members(ofGroup: group).allSatisfy { ProcFS.stat($0)?.isDead ?? true }
    }

    func resourceUsage() -> ResourceUsage? {
        guard let group else { return nil }
        return ProcFS.usage(of: members ?? ProcFS.members(ofGroup: group))
    }

    func remove() {
        guard !removed else { return }
        removed = true
        guard group != nil else { return }
        killAll()
        signalTree(SIGCONT)
        _ = waitBriefly(upTo: .seconds(1), until: isEmpty)
    }

    /// Sends `signal` to the group; a group that is already gone is not an error.
    private func send(_ signal: Int32, doing action: String) throws(SupervisorError) {
        guard let group, kill(-group, signal) == -1, errno != ESRCH else { return }
        let error = Errno(rawValue: errno)
        throw SupervisorError(.freezer, "could not \(action) child \(childName): signalling process group \(group) "
                              + "failed: \(error.sentenceText)", errno: error.rawValue)
    }
}
#endif
