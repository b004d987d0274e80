import SuperviseLifecycle
import Glibc
import SystemPackage

/// A pressure stall trigger (the kernel's PSI monitor): its descriptor becomes ready with
/// `EPOLLPRI` (``EventLoop/priority``) when tasks stalled on the resource for `stall` within a
/// sliding `window`, at most once per window, so a supervisor learns of pressure without polling.
/// `EPOLLERR` means the file went away (its cgroup was removed): the trigger is dead.
public final class PressureTrigger {
    /// Whether the stall counts when some tasks waited, or only when all did at once.
    public enum Scope: String, Sendable {
        case some
        case full
    }

    /// The open pressure file the trigger was written to: watch it, read the figures from it.
    public let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        Descriptor.close(descriptor)
    }

    /// Opens `path` (`/proc/pressure/memory`, a cgroup's `memory.pressure`, …) and writes the
    /// trigger `SCOPE STALL_µs WINDOW_µs`. The kernel takes windows from 500 ms to 10 s — only
    /// whole multiples of 2 s from a process without `CAP_SYS_RESOURCE`, as in most containers —
    /// and refuses (`EINVAL`) any other window or a stall longer than the window; a kernel without
    /// PSI has no such file (`ENOENT`) or refuses to open it (`EOPNOTSUPP` when booted `psi=0`).
    public static func open(path: String, scope: Scope, stall: Duration, window: Duration)
        -> Result<PressureTrigger, Errno> {
        FileIO.open(path, O_RDWR | O_NONBLOCK).flatMap { fd in
            let trigger = PressureTrigger(descriptor: fd)
            let text = "\(scope.rawValue) \(microseconds(stall)) \(microseconds(window))"
            // The kernel reads the trigger as a C string: the NUL ends it.
            return Descriptor.writeAll(fd, text + "\0").map { trigger }
        }
    }

    /// The figures the file shows now; `nil` when it can't be read or parsed.
    public func read() -> PressureStall? {
        guard case .success(let text) = Descriptor.readFromStart(descriptor) else { return nil }
        return PressureStall(text: text)
    }

    /// Whole microseconds, saturated: the kernel refuses what is out of its range.
    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return seconds < 0 ? Int64.min : Int64.max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        return sumOverflow ? Int64.max : sum
    }
}
