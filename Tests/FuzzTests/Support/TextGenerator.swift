import SuperviseTestSupport

/// Random text for free-text fields: ASCII, accents, combining marks, RTL marks, fullwidth
/// digits, emoji, controls and NUL, but never `\n` or `\r` (which end a line).
enum TextGenerator {
    static let pieces = ["a", "Z", "0", " ", "  ", "#", "=", "-", "é", "e\u{301}", "\u{200F}", "\u{202E}", "\u{FF11}",
                         "😀", "👩‍👩‍👧", "\t", "\0", "\u{1B}", "\u{7F}", "\u{85}", "中", "\\", "\"", "'"]

    /// `0...maxPieces` pieces joined.
    static func text(_ random: inout SeededGenerator, maxPieces: Int = 12) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    /// A valid task ID: 1–64 of `[A-Za-z0-9._-]`.
    static func taskID(_ random: inout SeededGenerator) -> String {
        let alphabet = Array("abcxyzABCXYZ0123456789._-")
        let length = random.oneIn(8) ? 64 : Int.random(in: 1...12, using: &random)
        return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }
}
