import SuperviseLifecycle
import Glibc

/// CLOCK_MONOTONIC, read through the vDSO (no system call).
public enum MonotonicClock {
    public static func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Instant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}
