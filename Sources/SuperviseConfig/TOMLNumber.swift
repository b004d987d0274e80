/// TOML integers and floats, from the word as written.
enum TOMLNumber {
    /// The number `word` spells, or `nil` when it is not a TOML number.
    static func parse(_ word: String) -> TOMLValue? {
        var body = Substring(word)
        var negative = false
        if let sign = body.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        switch body {
        case "inf": return .float(negative ? -.infinity : .infinity, text: word)
        case "nan": return .float(.nan, text: word)
        default: break
        }
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where body.hasPrefix(prefix) {
            guard word.first != "+", word.first != "-",
                  let digits = withoutUnderscores(body.dropFirst(2), allowed: { $0.isHexDigit }),
                  let value = Int64(digits, radix: radix)
            else { return nil }
            return .integer(value)
        }
        guard let plain = withoutUnderscores(body, allowed: { $0.isNumber || ".eE+-".contains($0) }),
              let first = plain.first, first.isNumber
        else { return nil }
        if plain.allSatisfy(\.isNumber) {
            guard plain == "0" || first != "0", let value = Int64((negative ? "-" : "") + plain) else { return nil }
            return .integer(value)
        }
        guard isFloat(plain), let value = Double(plain) else { return nil }
        return .float(negative ? -value : value, text: (negative ? "-" : "") + plain)
    }

    /// `text` without its underscores, when each underscore sits between two
    /// digits and every other character is `allowed` ASCII.
    private static func withoutUnderscores(_ text: Substring, allowed: (Character) -> Bool) -> String? {
        var result = ""
        var previous: Character?
        for (index, character) in zip(text.indices, text) {
            guard character.isASCII else { return nil }
            if character == "_" {
                let next = text.index(after: index)
                guard let before = previous, before.isHexDigit, next < text.endIndex, text[next].isHexDigit else {
                    return nil
                }
            } else {
                guard allowed(character) else { return nil }
                result.append(character)
            }
            previous = character
        }
        return result.isEmpty ? nil : result
    }

    /// TOML's float grammar: an integer part, then a fraction, an exponent or both.
    private static func isFloat(_ text: String) -> Bool {
        let lower = text.lowercased()
        let parts = lower.split(separator: "e", maxSplits: 1, omittingEmptySubsequences: false)
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = mantissa[0]
        guard !whole.isEmpty, whole.allSatisfy(\.isNumber), whole == "0" || whole.first != "0" else { return false }
        if mantissa.count == 2, mantissa[1].isEmpty || !mantissa[1].allSatisfy(\.isNumber) { return false }
        if parts.count == 2 {
            var exponent = parts[1]
            if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
            if exponent.isEmpty || !exponent.allSatisfy(\.isNumber) { return false }
        }
        return mantissa.count == 2 || parts.count == 2
    }
}
