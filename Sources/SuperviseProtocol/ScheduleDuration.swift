/// The durations of the protocol's `schedule … earliest=DURATION`: a whole number of seconds
/// (`900`), or a whole number with a unit, `ms`, `s`, `m` or `h` (`900000ms`, `15m`). No
/// fraction and no sign: a child computes the number, and the supervisor's own duration syntax
/// (`--window`) lives in the config layer, above this one.
public enum ScheduleDuration {
    /// Longest suffix first, so `ms` is not read as `m`.
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000),
    ]

    /// The milliseconds `text` names, or `nil` when it is no such duration or its milliseconds
    /// do not fit `Int64`.
    public static func milliseconds(_ text: Substring) -> Int64? {
        var number = text
        var unit: Int64 = 1_000
        for candidate in units where number.hasSuffix(candidate.suffix) {
            number = number.dropLast(candidate.suffix.count)
            unit = candidate.milliseconds
            break
        }
        guard !number.isEmpty, number.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = Int64(number)
        else { return nil }
        let (total, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : total
    }
}
