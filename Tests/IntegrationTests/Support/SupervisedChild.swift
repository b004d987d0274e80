import Foundation
import SuperviseTestSupport

/// The child of a running `supervise`, as the kernel sees it: for tests that must wait for a freeze or
/// a thaw where no `status` line can be asked for (`--control none`, or stdin already closed).
struct SupervisedChild {
    let backend: Backend
    /// The supervisor's pid (its first child is the supervised one).
    let supervisorPID: Int32

    /// The child's pid, once the supervisor has forked it.
    var pid: Int32? {
        let children = ProcessInspector.read("/proc/\(supervisorPID)/task/\(supervisorPID)/children") ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// Whether every process below the supervisor (the child's tree and what it adopted) is frozen by
    /// `backend`, as `FreezeProbe` judges it.
    var isFrozen: Bool {
        guard let (probe, tree) = look() else { return false }
        // A shell parked in vfork counts as halted (FreezeProbe), so before any SIGSTOP a one-process
        // look could pass: with sigstop, something must really be stopped.
        if backend == .sigstop && !tree.contains(where: { ProcessInspector.isStopped($0.pid) }) { return false }
        return probe.unfrozen(tree).isEmpty
    }

    /// Whether nothing of the child's tree is held any more.
    var isThawed: Bool {
        guard let (probe, tree) = look() else { return false }
        return probe.stillFrozen(tree).isEmpty
    }

    /// Waits up to `timeout` seconds for `isFrozen` to hold through `settle` seconds; returns whether it
    /// did. The settling is kept: the sigstop freezer stops what its scan found, and a process forked
    /// meanwhile (missed by this look too) runs until its next scan, so one frozen look can come early.
    func waitFrozen(timeout: Double = 10, settle: Double = 0.2) -> Bool {
        var frozenSince: ContinuousClock.Instant?
        return eventually(timeout: timeout) {
            guard isFrozen else {
                frozenSince = nil
                return false
            }
            let since = frozenSince ?? .now
            frozenSince = since
            return ContinuousClock.now - since >= .milliseconds(Int(settle * 1000))
        }
    }

    /// Waits up to `timeout` seconds for `isThawed`; returns whether it came.
    func waitThawed(timeout: Double = 10) -> Bool { eventually(timeout: timeout) { isThawed } }

    private func look() -> (FreezeProbe, [ProcessEntry])? {
        guard let pid else { return nil }
        // Everything below the supervisor, not just below the child: an orphan of the child's tree
        // is adopted by the supervisor (its subreaper) and must be frozen too.
        let tree = ProcessInspector.descendants(of: supervisorPID).filter(\.isAlive)
        guard !tree.isEmpty else { return nil }
        return (FreezeProbe(backend: backend, cgroup: Self.cgroup(of: pid, backend)), tree)
    }

    /// The freezer cgroup directory of `pid` for `backend`, from `/proc/PID/cgroup` (nil for sigstop).
    static func cgroup(of pid: Int32, _ backend: Backend) -> String? {
        guard backend != .sigstop, let text = ProcessInspector.read("/proc/\(pid)/cgroup") else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if backend == .cgroup2, fields[0] == "0", let mount = Backend.mountPoint(type: "cgroup2", option: nil) {
                return mount + fields[2]
            }
            if backend == .cgroup1, fields[1].split(separator: ",").contains("freezer"),
               let mount = Backend.mountPoint(type: "cgroup", option: "freezer") {
                return mount + fields[2]
            }
        }
        return nil
    }
}
