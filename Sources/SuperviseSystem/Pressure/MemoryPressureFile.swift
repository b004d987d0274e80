import Glibc
import SystemPackage

/// Where the supervisor reads memory pressure: its own cgroup's `memory.pressure` (cgroup v2,
/// the stalls of its children and itself) where the kernel has it, else the system's
/// `/proc/pressure/memory`.
public enum MemoryPressureFile {
    /// The system-wide file.
    public static let system = "/proc/pressure/memory"

    /// The supervisor's own cgroup's `memory.pressure` when it exists, else ``system``.
    public static var path: String {
        if case .success(let location) = CgroupSystem.locate(.v2) {
            let own = CgroupPaths.join(location.directory, "memory.pressure")
            if access(own, F_OK) == 0 { return own }
        }
        return system
    }

    /// A trigger on ``path`` (or, if the cgroup's file refuses it, on ``system``) for `stall`
    /// within `window`, and the path it is on; or why memory pressure can't be watched here.
    public static func trigger(stall: Duration, window: Duration) -> Result<(PressureTrigger, path: String), Unwatched> {
        var tried: [String] = []
        let own = path
        for path in own == system ? [system] : [own, system] {
            switch PressureTrigger.open(path: path, scope: .some, stall: stall, window: window) {
            case .success(let trigger): return .success((trigger, path))
            case .failure(let errno): tried.append("\(path): \(explanation(errno))")
            }
        }
        return .failure(Unwatched(reason: tried.joined(separator: "; ")))
    }

    /// What `supervise doctor` says: whether a trigger for `stall` within `window` can be armed,
    /// and on which file, or why not.
    public static func diagnose(stall: Duration, window: Duration) -> String {
        switch trigger(stall: stall, window: window) {
        case .success(let (_, path)):
            "usable: a trigger on \(path) (--memory-warnings, --reclaim-on-pressure)"
        case .failure(let unwatched):
            "not usable: \(unwatched.reason); --suspended-memory still works"
        }
    }

    /// Why memory pressure can't be watched: for each file tried, what the kernel said.
    public struct Unwatched: Error {
        public var reason: String
    }

    /// What an error opening or arming a trigger means.
    static func explanation(_ errno: Errno) -> String {
        switch errno {
        case .noSuchFileOrDirectory: "the kernel has no pressure stall information (CONFIG_PSI)"
        case .notSupported: "pressure stall information is off (booted with psi=0)"
        case .invalidArgument:
            "the kernel refused the trigger: windows from 500 ms to 10 s, whole multiples of 2 s without CAP_SYS_RESOURCE"
        default: errno.sentenceText
        }
    }
}
