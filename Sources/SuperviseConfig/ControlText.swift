/// Small text helpers shared by the control-command and config parsers.
public enum ControlText {
    /// The value of an ASCII digit `0`–`9`, or `nil` for anything else — a digit followed by a
    /// combining mark (`1\u{301}`) is one `Character` but not a digit.
    static func digitValue(_ character: Character) -> Int64? {
        guard let ascii = character.asciiValue, ascii >= UInt8(ascii: "0"), ascii <= UInt8(ascii: "9") else { return nil }
        return Int64(ascii - UInt8(ascii: "0"))
    }

    static func isDigit(_ character: Character) -> Bool {
        digitValue(character) != nil
    }

    static func isSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\r" || character == "\n" || character == "\r\n"
    }

    /// `text` without leading and trailing spaces, tabs, CRs and LFs.
    static func trimmed(_ text: some StringProtocol) -> String {
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// How many Unicode scalars of the user's text an error message quotes.
    static let excerptLength = 80

    /// `text` cut to its first ``excerptLength`` Unicode scalars, with `…` when cut, so an error
    /// quotes a bounded excerpt of a long input. Cut by scalars, not characters: one
    /// `Character` can carry any number of combining marks.
    public static func excerpt(_ text: some StringProtocol) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > excerptLength else { return String(text) }
        return String(String.UnicodeScalarView(scalars.prefix(excerptLength))) + "…"
    }

    /// `true` when `text` is one or more of `[A-Za-z0-9]` and the characters in `extra`.
    static func isToken(_ text: some StringProtocol, extra: String) -> Bool {
        !text.isEmpty && text.allSatisfy { character in
            character.isASCII && (character.isLetter || character.isNumber || extra.contains(character))
        }
    }

    /// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        let length = word.count
        // The distance is at least the difference in length: a long word is no typo of a short
        // name, and skipping it keeps a 20,000-character word from costing a quadratic table.
        for candidate in candidates where abs(length - candidate.count) <= max(2, candidate.count / 3) {
            let distance = editDistance(word, candidate)
            if distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        guard let best, best.distance <= max(2, best.candidate.count / 3) else { return nil }
        return best.candidate
    }

    /// Levenshtein distance between two strings, by characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }
}
