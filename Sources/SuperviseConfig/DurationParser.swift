/// Reads the durations users write: plain seconds (`2.5`, `0`, `.3`) or a
/// number with a unit (`250ms`, `2s`, `1m`, `1.5h`, `500us`).
public enum DurationParser {
    /// The accepted forms, for error messages.
    public static let acceptedForms =
        "expected seconds (2.5) or a number with a unit: us, ms, s, m or h (250ms, 2s, 1m)"

    /// The longest duration accepted: what fits in 64-bit nanoseconds (about 292 years).
    public static let maximum = Duration.nanoseconds(Int64.max)

    /// Longest suffix first, so `ms` is not read as `m` after a bad number.
    private static let units: [(suffix: String, nanoseconds: Int64)] = [
        ("us", 1_000), ("ms", 1_000_000),
        ("s", 1_000_000_000), ("m", 60_000_000_000), ("h", 3_600_000_000_000),
    ]

    /// Fraction digits beyond this are ignored: they are worth less than a
    /// nanosecond for every unit but `h`, and less than 4 ns for `h`.
    private static let maxFractionDigits = 12

    /// The duration `text` names, exactly (to the nanosecond), or an error that
    /// quotes `text` and lists the accepted forms.
    public static func parse(_ text: String) throws(UsageError) -> Duration {
        let trimmed = ControlText.trimmed(text)
        let invalid = "invalid duration '\(ControlText.excerpt(text))'"
        if trimmed.isEmpty {
            throw UsageError("empty duration: \(acceptedForms)")
        }
        // A duration with a minus sign is negative; anything else after a `-` (a forgotten
        // value before the next option, `--limit`) is no duration at all.
        if trimmed.hasPrefix("-") {
            let negative = (try? parse(String(trimmed.dropFirst()))) != nil
            throw UsageError("\(invalid): \(negative ? "must not be negative; " : "")\(acceptedForms)")
        }
        var number = Substring(trimmed)
        var unit: Int64 = 1_000_000_000
        for candidate in units where number.hasSuffix(candidate.suffix) {
            number = number.dropLast(candidate.suffix.count)
            unit = candidate.nanoseconds
            break
        }
        guard let (whole, fraction, fractionDigits) = decimalParts(number) else {
            throw UsageError("\(invalid): \(acceptedForms)")
        }
        guard let whole, whole <= Int64.max / unit else {
            throw UsageError("\(invalid): too long (at most 292 years); \(acceptedForms)")
        }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let total = Duration.nanoseconds(whole * unit) + Duration.nanoseconds(unit) * fraction / scale
        // Compared before truncating to the nanosecond: 9223372036.8547758079 s is the maximum.
        guard total < maximum + .nanoseconds(1) else {
            throw UsageError("\(invalid): too long (at most 292 years); \(acceptedForms)")
        }
        return .nanoseconds(total.nanoseconds)
    }

    /// `digits[.digits]` split into its whole part (`nil` when it overflows),
    /// its fraction as an integer, and the number of fraction digits kept.
    /// `nil` when `text` is not such a number.
    private static func decimalParts(_ text: Substring) -> (Int64?, Int64, Int)? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let wholeDigits = parts[0].map(ControlText.digitValue)
        let fractionDigits = (parts.count > 1 ? parts[1] : "").map(ControlText.digitValue)
        guard !wholeDigits.contains(nil), !fractionDigits.contains(nil), !(wholeDigits.isEmpty && fractionDigits.isEmpty)
        else { return nil }
        var whole: Int64? = 0
        for case let digit? in wholeDigits {
            guard let value = whole else { break }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            whole = overflow1 || overflow2 ? nil : sum
        }
        var fraction: Int64 = 0
        let kept = fractionDigits.prefix(maxFractionDigits)
        for case let digit? in kept { fraction = fraction * 10 + digit }
        return (whole, fraction, kept.count)
    }
}
