import SuperviseTestSupport

/// Turns a valid input into a near-valid one: byte flips, insertions of troublesome bytes and
/// scalars, splices with another input, truncations, long runs and deep nesting.
struct Mutator {
    /// Bytes and scalars that have broken parsers: controls, invalid UTF-8, a combining mark,
    /// right-to-left marks, a fullwidth digit, an emoji, separators the grammar gives meaning to.
    static let interesting: [[UInt8]] = {
        let scalars = ["\0", "\r", "\n", "\r\n", "\u{1B}", "\u{7F}", "\t", " ", "\u{301}", "\u{200F}", "\u{202E}",
                       "\u{FF11}", "\u{0663}", "\u{2164}", "\u{1F600}", "\u{FEFF}", "#", "=", ".", "-", "+", "_",
                       "\"", "'", "\\", "[", "]", "{", "}", ",", "0", "9", "e", "x", "ms", "s", "h", "all", "--"]
        let invalidUTF8: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0x80], [0xE0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90],
                                      [0xFE], [0xFF], [0xC3]]
        return scalars.map { Array($0.utf8) } + invalidUTF8
    }()

    /// Strings that are long or deep enough to find limits.
    static func longRun(_ random: inout SeededGenerator) -> [UInt8] {
        let unit = [UInt8("[".utf8.first!)] + (random.oneIn(2) ? [] : Array("{a=".utf8))
        let pieces: [[UInt8]] = [Array("9".utf8), Array("\u{301}".utf8), Array("a".utf8), Array(" ".utf8), unit]
        let piece = pieces.randomElement(using: &random)!
        let count = [40, 300, 1100, 5000].randomElement(using: &random)!
        return repeated(piece, count)
    }

    /// `piece` `count` times over, appended into one buffer: `joined()` of a repeated array walks a
    /// generic flattening iterator byte by byte, which in a debug build cost the fuzz suite 14 s of CPU.
    static func repeated(_ piece: [UInt8], _ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(piece.count * count)
        for _ in 0..<count { bytes.append(contentsOf: piece) }
        return bytes
    }

    /// One to four mutations of `input`, `other` being a second corpus entry to splice from.
    static func mutate(_ input: [UInt8], splicingFrom other: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<7, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[min(at, bytes.count - 1)] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            case 1:
                bytes.insert(contentsOf: interesting.randomElement(using: &random)!, at: at)
            case 2 where !bytes.isEmpty:
                let end = Int.random(in: at...min(bytes.count, at + 8), using: &random)
                bytes.removeSubrange(min(at, bytes.count)..<end)
            case 3:
                bytes = Array(bytes.prefix(at)) + other.suffix(Int.random(in: 0...other.count, using: &random))
            case 4:
                bytes = Array(bytes.prefix(at))
            case 5:
                bytes.insert(contentsOf: longRun(&random), at: at)
            default:
                bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
            }
        }
        return bytes
    }
}
