/// When the machine counts as idle for a scheduled task's `idle` condition: the share of the
/// last 10 seconds in which some runnable task waited for a CPU (`/proc/pressure/cpu`'s
/// `some avg10`) is below a threshold, in percent.
public struct IdleRule: Equatable, Sendable {
    /// The percentage of stalled time at and above which the machine is busy.
    public var threshold: Double

    /// 10 %: a tenth of the time some task waited for a CPU.
    public static let standard = IdleRule(threshold: 10)

    public init(threshold: Double) {
        self.threshold = threshold
    }

    /// True when `stall.some.avg10` is below the threshold.
    public func isIdle(_ stall: PressureStall) -> Bool {
        stall.some.avg10 < threshold
    }

    /// The stall that makes a CPU pressure trigger fire over `window` when the machine turns
    /// busy: the threshold's share of the window (10 % of 2 s: 200 ms), at least 1 µs.
    public func triggerStall(window: Duration) -> Duration {
        max(.microseconds(1), window * (min(max(threshold, 0), 100) / 100))
    }
}
