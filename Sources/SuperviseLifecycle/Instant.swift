/// A point on the supervisor's CLOCK_MONOTONIC, in nanoseconds.
///
/// The lifecycle core never reads a clock: every input carries its `Instant`,
/// so tests drive it with a virtual one. Every sum and difference saturates at the ends of
/// Int64: a deadline ~292 years away (the longest duration a user may give) is "never",
/// not a trap.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = Instant(nanoseconds: 0)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: saturating(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds), rhs > .zero))
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(nanoseconds: saturating(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), rhs < .zero))
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .nanoseconds(saturating(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), lhs > rhs))
    }

    /// Milliseconds since `origin`, for reports.
    public func milliseconds(since origin: Instant) -> Double {
        Double((self - origin).nanoseconds) / 1_000_000
    }

    /// An Int64 result, or the end it went past: `Int64.max` when `upward`, else `Int64.min`.
    private static func saturating(_ result: (partialValue: Int64, overflow: Bool), _ upward: Bool) -> Int64 {
        guard result.overflow else { return result.partialValue }
        return upward ? .max : .min
    }

    public var description: String { "\(Double(nanoseconds) / 1_000_000_000)s" }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || overflow2 { return seconds < 0 ? .min : .max }
        return total
    }

    /// The duration in whole milliseconds, as the protocol carries it.
    public var wholeMilliseconds: Int64 { nanoseconds / 1_000_000 }
}

/// The earlier of two optional instants (`nil` when both are).
@inline(__always)
public func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}
