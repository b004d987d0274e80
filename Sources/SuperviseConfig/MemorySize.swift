/// A size in bytes as the user writes it: a whole number of bytes, or one followed by `K`,
/// `M` or `G` (powers of 1024, either case): `512M` is 536870912.
public enum MemorySize {
    /// The size `text` says, or a one-line error.
    public static func parse(_ text: String) throws(UsageError) -> UInt64 {
        let shifts: [Character: UInt64] = ["K": 10, "M": 20, "G": 30, "k": 10, "m": 20, "g": 30]
        var digits = Substring(text)
        var shift: UInt64 = 0
        if let last = digits.last, let power = shifts[last] {
            shift = power
            digits.removeLast()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }), let number = UInt64(digits),
              number <= UInt64.max >> shift
        else {
            let negative = text.hasPrefix("-") && (try? parse(String(text.dropFirst()))) != nil
            throw UsageError("invalid size '\(ControlText.excerpt(text))': \(negative ? "must not be negative; " : "")"
                + "expected bytes, or a whole number with K, M or G (powers of 1024), e.g. 512M")
        }
        return number << shift
    }
}
