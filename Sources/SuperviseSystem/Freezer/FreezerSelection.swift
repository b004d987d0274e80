import Glibc

/// Makes the freezer a run asked for, or for `auto` the first that works here.
public enum FreezerSelection {
    /// Sweeps stale cgroups of dead supervisors, then makes the freezer for `choice`.
    ///
    /// `adoption` tells the sigstop freezer where orphans of the children's trees go; `cgroupRoot`
    /// (`--cgroup-root`) is the cgroup v2 directory this supervisor's cgroup is made in, instead
    /// of the one it runs in.
    /// `notes` are log lines: the sweep, and which backend was picked and why the others were
    /// passed over. An explicit choice that can't work here throws `.freezerUnavailable` with the reason.
    public static func make(_ choice: FreezerChoice, adoption: OrphanAdoption? = nil, cgroupRoot: String? = nil)
        throws(SupervisorError) -> (freezer: any Freezer, notes: [String]) {
        if let missing = procMissing() { throw missing }
        let swept = StaleCgroupSweeper.sweep(cgroupRoot: cgroupRoot)
        let (freezer, notes) = try select(choice, adoption: adoption, locate: { CgroupSystem.place($0, root: cgroupRoot) })
        return (freezer, swept + notes)
    }

    /// Picks the backend for `choice`, finding the hierarchies with `locate`.
    /// `isRoot`: whether the supervisor runs as root, for the hint of what to do about a freezer refused.
    static func select(_ choice: FreezerChoice, adoption: OrphanAdoption? = nil, isRoot: Bool = getuid() == 0,
                       locate: (CgroupVersion) -> Result<CgroupLocation, FreezerUnusable>)
        throws(SupervisorError) -> (freezer: any Freezer, notes: [String]) {
        var notes: [String] = []
        let candidates: [FreezerKind] = switch choice {
        case .auto: [.cgroup2, .cgroup1, .sigstop]
        case .cgroup2: [.cgroup2]
        case .cgroup1: [.cgroup1]
        case .sigstop: [.sigstop]
        }
        for kind in candidates {
            switch make(kind, adoption: adoption, locate: locate) {
            case .success(let freezer):
                notes.append(usableNote(freezer))
                return (freezer, notes)
            case .failure(let unusable) where choice == .auto:
                // auto goes on to a freezer that works: only what the user can grant is worth a hint.
                let grantable = unusable.cause == .notPermitted || unusable.cause == .notDelegated
                let hint = grantable ? unusable.hint(for: kind, isRoot: isRoot) : nil
                notes.append("\(kind.rawValue) passed over: \(unusable.reason)" + (hint.map { "; \($0)" } ?? ""))
            case .failure(let unusable):
                let remedy = unusable.hint(for: kind, isRoot: isRoot).map { "\($0), or use" } ?? "use"
                throw SupervisorError(.freezerUnavailable,
                                      "--freezer \(kind.rawValue) can't be used here: \(unusable.reason); \(remedy) --freezer auto")
            }
        }
        preconditionFailure("sigstop is always usable")
    }

    /// Whether `kind` works here, found by making it and removing what that made: where, or
    /// why not, for `supervise doctor`.
    public static func diagnose(_ kind: FreezerKind) -> (usable: Bool, text: String) {
        if let missing = procMissing() { return (false, "\(kind.rawValue): not usable: \(missing.message)") }
        switch make(kind, adoption: nil, locate: { CgroupSystem.place($0, root: nil) }) {
        case .success(let freezer):
            defer { freezer.removeAll() }
            switch freezer {
            case let v2 as CgroupV2Freezer: return (true, "cgroup2: usable below \(parent(of: v2.directory))")
            case let v1 as CgroupV1Freezer: return (true, "cgroup1: usable below \(parent(of: v1.directory))")
            default: return (true, "sigstop: usable (always; its processes can see the stop)")
            }
        case .failure(let unusable):
            return (false, "\(kind.rawValue): not usable: \(unusable.reason)")
        }
    }

    /// Why no freezer can work, when `/proc` can't be read: every one finds or checks the children
    /// there (sigstop their trees and states, the cgroup freezers this process's cgroup), so a
    /// freeze could not be verified. Nil when it can.
    private static func procMissing() -> SupervisorError? {
        guard case .failure(let error) = FileIO.readFile("/proc/self/stat") else { return nil }
        return SupervisorError(.system, "/proc can't be read (/proc/self/stat: \(error.sentenceText)): it is how every freezer "
                               + "finds and checks the children; mount /proc (mount -t proc proc /proc)", errno: error.rawValue)
    }

    private static func make(_ kind: FreezerKind, adoption: OrphanAdoption?,
                             locate: (CgroupVersion) -> Result<CgroupLocation, FreezerUnusable>) -> Result<any Freezer, FreezerUnusable> {
        do throws(FreezerUnusable) {
            switch kind {
            case .cgroup2: return .success(try CgroupV2Freezer(location: locate(.v2).get()))
            case .cgroup1: return .success(try CgroupV1Freezer(location: locate(.v1Freezer).get()))
            case .sigstop: return .success(SignalStopFreezer(adoption: adoption))
            }
        } catch {
            return .failure(error)
        }
    }

    private static func usableNote(_ freezer: any Freezer) -> String {
        switch freezer {
        case let v2 as CgroupV2Freezer:
            "cgroup2 at \(parent(of: v2.directory)): usable; children's cgroups go in \(v2.directory)"
        case let v1 as CgroupV1Freezer:
            "cgroup1 at \(parent(of: v1.directory)): usable; children's cgroups go in \(v1.directory)"
        default:
            "sigstop: usable; each child's tree is followed by its parent links in /proc, and its processes can see the stop"
        }
    }

    private static func parent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/"), slash != directory.startIndex else { return "/" }
        return String(directory[..<slash])
    }
}
