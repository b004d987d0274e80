import Glibc

/// CLOCK_MONOTONIC, the clock the supervisor counts its limits on.
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
