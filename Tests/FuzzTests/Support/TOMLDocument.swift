@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// A TOML value without line numbers or table origins, to compare what was generated with
/// what was parsed.
indirect enum PlainTOML: Equatable {
    case string(String)
    case integer(Int64)
    /// The bit pattern, so `-0.0` and `0.0` differ; every NaN is one value.
    case float(UInt64)
    case boolean(Bool)
    case array([PlainTOML])
    case table([Field])

    struct Field: Equatable {
        var key: String
        var value: PlainTOML
    }

    static func float(_ value: Double) -> PlainTOML {
        .float(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
    }

    init(_ value: TOMLValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(number)
        case .float(let number, _): self = .float(number)
        case .boolean(let flag): self = .boolean(flag)
        case .array(let elements): self = .array(elements.map(PlainTOML.init))
        case .table(let table): self = PlainTOML(table)
        }
    }

    init(_ table: TOMLTable) {
        self = .table(table.entries.map { Field(key: $0.key, value: PlainTOML($0.value)) })
    }
}

/// Writes generated TOML in the many spellings the subset allows: bare and quoted keys,
/// basic strings with every escape, literal strings, integers in four radixes with
/// underscores, floats, arrays across lines with comments, inline tables, dotted keys,
/// `[headers]`, LF or CRLF.
struct TOMLWriter {
    var random: SeededGenerator
    let newline: String

    init(random: SeededGenerator) {
        self.random = random
        newline = self.random.oneIn(4) ? "\r\n" : "\n"
    }

    /// A document and the root table it must parse to.
    mutating func document() -> (text: String, root: PlainTOML) {
        var text = random.oneIn(3) ? "# generated" + newline : ""
        var fields: [PlainTOML.Field] = []
        var usedKeys = Set<String>()
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            let key = uniqueKey(&usedKeys)
            let (valueText, value) = self.value(depth: 0)
            if random.oneIn(4) {
                // A dotted key makes a table holding the value.
                let inner = bareKey()
                text += "\(spelled(key)) . \(spelled(inner)) = \(valueText)" + comment() + newline
                fields.append(.init(key: key, value: .table([.init(key: inner, value: value)])))
            } else {
                text += "\(spelled(key))\(space())=\(space())\(valueText)" + comment() + newline
                fields.append(.init(key: key, value: value))
            }
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let key = uniqueKey(&usedKeys)
            var inner: [PlainTOML.Field] = []
            var innerKeys = Set<String>()
            let nested = random.oneIn(3) ? bareKey() : nil
            text += newline + "[\(space())\(spelled(key))" + (nested.map { ".\(spelled($0))" } ?? "") + "]" + comment()
                + newline
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let innerKey = uniqueKey(&innerKeys)
                let (valueText, value) = self.value(depth: 0)
                text += "\(spelled(innerKey)) = \(valueText)" + newline
                inner.append(.init(key: innerKey, value: value))
            }
            let table = PlainTOML.table(inner)
            fields.append(.init(key: key, value: nested.map { .table([.init(key: $0, value: table)]) } ?? table))
        }
        return (text, .table(fields))
    }

    private mutating func value(depth: Int) -> (String, PlainTOML) {
        switch Int.random(in: 0..<(depth < 4 ? 7 : 5), using: &random) {
        case 0: return string()
        case 1: return integer()
        case 2: return float()
        case 3: return random.oneIn(2) ? ("true", .boolean(true)) : ("false", .boolean(false))
        case 4: return string()
        case 5:
            var texts: [String] = [], values: [PlainTOML] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let (text, value) = self.value(depth: depth + 1)
                texts.append(text)
                values.append(value)
            }
            let separator = random.oneIn(2) ? ", " : "," + comment() + newline + "  "
            let trailing = !texts.isEmpty && random.oneIn(3) ? "," : ""
            return ("[" + texts.joined(separator: separator) + trailing + "]", .array(values))
        default:
            var texts: [String] = [], fields: [PlainTOML.Field] = [], keys = Set<String>()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let key = uniqueKey(&keys)
                let (text, value) = self.value(depth: depth + 1)
                guard !text.contains("\n") else { continue }  // an inline table is one line
                texts.append("\(spelled(key)) = \(text)")
                fields.append(.init(key: key, value: value))
            }
            return ("{" + space() + texts.joined(separator: ", ") + space() + "}", .table(fields))
        }
    }

    private mutating func string() -> (String, PlainTOML) {
        let text = TextGenerator.text(&random) + (random.oneIn(4) ? "\n\r\u{08}\u{0C}" : "")
        let literalSafe = text.unicodeScalars.allSatisfy { $0 != "'" && ($0.value >= 0x20 && $0.value != 0x7F || $0 == "\t") }
        if literalSafe, random.oneIn(3) { return ("'" + text + "'", .string(text)) }
        return (quoted(text), .string(text))
    }

    /// `text` as a basic string, escaping what must be and, at random, what may be.
    private mutating func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\t" where random.oneIn(2): out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || random.oneIn(8):
                out += random.oneIn(2) && scalar.value <= 0xFFFF
                    ? "\\u" + hex(scalar.value, width: 4) : "\\U" + hex(scalar.value, width: 8)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private mutating func integer() -> (String, PlainTOML) {
        let value = random.oneIn(8) ? [Int64.max, Int64.min, 0].randomElement(using: &random)!
            : Int64.random(in: -1_000_000...1_000_000, using: &random)
        if value >= 0, random.oneIn(3) {
            let (prefix, radix) = [("0x", 16), ("0o", 8), ("0b", 2)].randomElement(using: &random)!
            return (prefix + String(value, radix: radix, uppercase: random.oneIn(2)), .integer(value))
        }
        let digits = String(value.magnitude)
        let grouped = random.oneIn(3) ? underscored(digits) : digits
        return ((value < 0 ? "-" : random.oneIn(4) ? "+" : "") + grouped, .integer(value))
    }

    private mutating func float() -> (String, PlainTOML) {
        if random.oneIn(8) {
            let (text, value) = [("inf", Double.infinity), ("-inf", -Double.infinity), ("+inf", Double.infinity),
                                 ("nan", Double.nan), ("-0.0", -0.0)].randomElement(using: &random)!
            return (text, .float(value))
        }
        let whole = String(Int.random(in: 0...99_999, using: &random))
        let fraction = random.oneIn(4) ? "" : "." + String(Int.random(in: 0...999_999, using: &random))
        let exponent = fraction.isEmpty || random.oneIn(3)
            ? ["e", "E"].randomElement(using: &random)! + ["", "+", "-"].randomElement(using: &random)!
                + String(Int.random(in: 0...30, using: &random))
            : ""
        let negative = random.oneIn(3)
        let plain = whole + fraction + exponent
        let value = Double(plain)!
        return ((negative ? "-" : "") + plain, .float(negative ? -value : value))
    }

    private mutating func underscored(_ digits: String) -> String {
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, random.oneIn(3) { out += "_" }
            out.append(digit)
        }
        return out
    }

    private mutating func uniqueKey(_ used: inout Set<String>) -> String {
        while true {
            let key = random.oneIn(4) ? TextGenerator.text(&random, maxPieces: 4) : bareKey()
            if used.insert(key).inserted { return key }
        }
    }

    private mutating func bareKey() -> String {
        let alphabet = Array("abcXYZ019_-")
        return String((0..<Int.random(in: 1...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    /// A key as written: bare when it can be, else quoted (basic or literal).
    private mutating func spelled(_ key: String) -> String {
        let bare = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic
            || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        return bare && !random.oneIn(5) ? key : quoted(key)
    }

    private mutating func space() -> String { ["", " ", "\t", "  "].randomElement(using: &random)! }

    private mutating func comment() -> String {
        random.oneIn(4) ? space() + " # note \u{1F600} \"' [" : ""
    }

    private func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
