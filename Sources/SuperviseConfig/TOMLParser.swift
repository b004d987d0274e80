/// A TOML syntax or structure error at a line.
struct TOMLError: Error, Equatable {
    var line: Int
    var message: String
}

/// Parses the TOML subset the config file needs, keeping key order and line numbers:
/// comments, `[dotted.table]` headers, bare, quoted and dotted keys, basic and
/// literal strings (one line), integers (decimal, hex, octal, binary), floats,
/// booleans, arrays (across lines) and inline tables. Multi-line strings, dates
/// and arrays of tables are refused with a message that says so.
struct TOMLParser {
    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var line = 1
    /// How many arrays and inline tables enclose the value being read.
    private var depth = 0

    /// The deepest nesting of arrays and inline tables accepted: a config needs two or three
    /// levels, and tens of thousands would overflow the stack of this recursive parser.
    static let maxNesting = 32

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// The document's root table.
    static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(text)
        return try parser.document()
    }

    // MARK: Document structure

    private mutating func document() throws(TOMLError) -> TOMLTable {
        var root = TOMLTable(line: 1, origin: .header)
        var currentTable: [String] = []
        while true {
            skipSpaces()
            guard let next = peek() else { return root }
            if next == "#" || isNewline() {
                try endOfLine()
            } else if next == "[" {
                position += 1
                if peek() == "[" {
                    throw error("arrays of tables ([[...]]) are not supported; use [child.NAME] tables")
                }
                let headerLine = line
                skipSpaces()
                let path = try dottedKey()
                skipSpaces()
                guard peek() == "]" else { throw error("expected ']' to close the table header") }
                position += 1
                try endOfLine()
                try root.defineTable(at: path[...], line: headerLine)
                currentTable = path
            } else {
                let keyLine = line
                let (key, value) = try keyValue()
                try endOfLine()
                try root.insert(value, at: (currentTable + key)[...], line: keyLine, keyCount: key.count)
            }
        }
    }

    /// Skips spaces and an optional comment, then requires a newline or the end of the text.
    private mutating func endOfLine() throws(TOMLError) {
        skipSpaces()
        skipComment()
        if peek() == nil { return }
        guard isNewline() else {
            throw error("expected the end of the line, found '\(ControlText.excerpt(restOfLine()))'")
        }
        consumeNewline()
    }

    // MARK: Keys

    /// `key = value`, in a table or an inline table.
    private mutating func keyValue() throws(TOMLError) -> (key: [String], value: TOMLValue) {
        let key = try dottedKey()
        skipSpaces()
        guard peek() == "=" else { throw missingEquals(after: key) }
        position += 1
        skipSpaces()
        return (key, try value())
    }

    private mutating func dottedKey() throws(TOMLError) -> [String] {
        var parts = [try simpleKey()]
        while true {
            let saved = position
            skipSpaces()
            guard peek() == "." else { position = saved; return parts }
            position += 1
            skipSpaces()
            parts.append(try simpleKey())
        }
    }

    private mutating func simpleKey() throws(TOMLError) -> String {
        switch peek() {
        case "\"": return try basicString()
        case "'": return try literalString()
        default:
            let start = position
            while let scalar = peek(), Self.isBareKeyScalar(scalar) { position += 1 }
            guard position > start else {
                throw error(peek() == nil || isNewline()
                    ? "expected a key" : "invalid key character '\(peek()!)'; quote keys that are not A-Za-z0-9_-")
            }
            return String(String.UnicodeScalarView(scalars[start..<position]))
        }
    }

    private static func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }

    // MARK: Values

    private mutating func value() throws(TOMLError) -> TOMLValue {
        switch peek() {
        case nil: throw error("expected a value")
        case "\"": return .string(try basicString())
        case "'": return .string(try literalString())
        case "[": return try array()
        case "{": return try inlineTable()
        default:
            if isNewline() || peek() == "#" { throw error("expected a value") }
            return try bareValue()
        }
    }

    private mutating func basicString() throws(TOMLError) -> String {
        if startsWith("\"\"\"") {
            throw error("multi-line strings (\"\"\") are not supported; write \\n in a \"...\" string")
        }
        position += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek(), !isNewline() else { throw error("unterminated string: add the closing \"") }
            position += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                result.append(try escape())
            default:
                guard scalar == "\t" || scalar.value >= 0x20 && scalar.value != 0x7F else {
                    throw error("control character U+\(hex(scalar.value)) in a string; write it as an escape")
                }
                result.append(scalar)
            }
        }
    }

    private mutating func escape() throws(TOMLError) -> Unicode.Scalar {
        guard let scalar = peek() else { throw error("unterminated string: add the closing \"") }
        position += 1
        switch scalar {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var code: UInt32 = 0
            for _ in 0..<count {
                guard let digit = peek(), let value = Self.hexValue(digit) else {
                    throw error("invalid escape: \\\(scalar) needs \(count) hex digits")
                }
                code = code << 4 | value
                position += 1
            }
            guard let result = Unicode.Scalar(code) else {
                throw error("invalid escape: U+\(hex(code)) is not a Unicode scalar value")
            }
            return result
        default:
            throw error("invalid escape '\\\(scalar)': use \\\\, \\\", \\b, \\t, \\n, \\f, \\r, \\uXXXX or \\UXXXXXXXX")
        }
    }

    private mutating func literalString() throws(TOMLError) -> String {
        if startsWith("'''") {
            throw error("multi-line strings (''') are not supported; write \\n in a \"...\" string")
        }
        position += 1
        let start = position
        while peek() != "'" {
            guard peek() != nil, !isNewline() else { throw error("unterminated string: add the closing '") }
            position += 1
        }
        defer { position += 1 }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    private mutating func array() throws(TOMLError) -> TOMLValue {
        try enterNesting()
        defer { depth -= 1 }
        let openingLine = line
        position += 1
        var elements: [TOMLValue] = []
        while true {
            try skipSpacesNewlinesAndComments()
            if peek() == "]" { position += 1; return .array(elements) }
            guard peek() != nil else { throw TOMLError(line: openingLine, message: "unterminated array: add the closing ']'") }
            elements.append(try value())
            try skipSpacesNewlinesAndComments()
            switch peek() {
            case ",": position += 1
            case "]": position += 1; return .array(elements)
            case nil: throw TOMLError(line: openingLine, message: "unterminated array: add the closing ']'")
            default: throw error("expected ',' or ']' in the array, found '\(ControlText.excerpt(restOfLine()))'")
            }
        }
    }

    private mutating func inlineTable() throws(TOMLError) -> TOMLValue {
        try enterNesting()
        defer { depth -= 1 }
        var table = TOMLTable(line: line, origin: .inline)
        position += 1
        skipSpaces()
        if peek() == "}" { position += 1; return .table(table) }
        while true {
            skipSpaces()
            let (key, value) = try keyValue()
            try table.insert(value, at: key[...], line: line, keyCount: key.count)
            skipSpaces()
            switch peek() {
            case ",": position += 1
            case "}": position += 1; return .table(table)
            default: throw error("expected ',' or '}' in the inline table (it must fit on one line)")
            }
        }
    }

    private mutating func enterNesting() throws(TOMLError) {
        guard depth < Self.maxNesting else {
            throw error("arrays and inline tables nested more than \(Self.maxNesting) deep")
        }
        depth += 1
    }

    /// Booleans and numbers: a run of characters up to a delimiter.
    private mutating func bareValue() throws(TOMLError) -> TOMLValue {
        let start = position
        while let scalar = peek(), Self.isBareKeyScalar(scalar) || "+.:".unicodeScalars.contains(scalar) {
            position += 1
        }
        let word = String(String.UnicodeScalarView(scalars[start..<position]))
        guard !word.isEmpty else { throw error("expected a value, found '\(ControlText.excerpt(restOfLine()))'") }
        if word == "true" { return .boolean(true) }
        if word == "false" { return .boolean(false) }
        if let value = TOMLNumber.parse(word) { return value }
        if word.contains(":") || word.count >= 10 && word.utf8.dropFirst(4).first == UInt8(ascii: "-") {
            throw error("dates and times are not supported: '\(ControlText.excerpt(word))'")
        }
        throw error("invalid value '\(ControlText.excerpt(word))': strings need quotes (\"...\")")
    }

    // MARK: Scanning

    private func peek() -> Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private func startsWith(_ text: String) -> Bool {
        scalars[position...].starts(with: text.unicodeScalars)
    }

    private func isNewline() -> Bool {
        peek() == "\n" || startsWith("\r\n")
    }

    private mutating func consumeNewline() {
        position += peek() == "\r" ? 2 : 1
        line += 1
    }

    private mutating func skipSpaces() {
        while peek() == " " || peek() == "\t" { position += 1 }
    }

    private mutating func skipComment() {
        guard peek() == "#" else { return }
        while peek() != nil, !isNewline() { position += 1 }
    }

    private mutating func skipSpacesNewlinesAndComments() throws(TOMLError) {
        while true {
            skipSpaces()
            skipComment()
            guard isNewline() else { return }
            consumeNewline()
        }
    }

    private func restOfLine() -> String {
        var end = position
        while end < scalars.count, scalars[end] != "\n", scalars[end] != "\r" { end += 1 }
        return String(String.UnicodeScalarView(scalars[position..<end]))
    }

    private func missingEquals(after key: [String]) -> TOMLError {
        let found = restOfLine()
        return error("expected '=' after the key '\(ControlText.excerpt(key.joined(separator: ".")))'"
            + (found.isEmpty ? "" : ", found '\(ControlText.excerpt(found))'"))
    }

    private func error(_ message: String) -> TOMLError {
        TOMLError(line: line, message: message)
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension TOMLTable {
    /// Adds `value` at the dotted `path`, making the tables on the way.
    /// The last `keyCount` parts of the path were written as the key itself.
    mutating func insert(_ value: TOMLValue, at path: ArraySlice<String>, line: Int, keyCount: Int)
        throws(TOMLError)
    {
        let key = path.first!
        if path.count == 1 {
            if let existing = self[key] {
                throw TOMLError(line: line, message: "duplicate key '\(ControlText.excerpt(key))' (first at line \(existing.line))")
            }
            entries.append(Entry(key: key, value: value, line: line))
            return
        }
        let madeByKey = path.count <= keyCount
        try withSubtable(key, line: line, origin: madeByKey ? .dottedKey : .implied) { (table) throws(TOMLError) in
            if madeByKey, table.origin != .dottedKey {
                throw TOMLError(line: line, message: "dotted key '\(ControlText.excerpt(key))' extends a table defined at line \(table.line)")
            }
            try table.insert(value, at: path.dropFirst(), line: line, keyCount: keyCount)
        }
    }

    /// Defines the table a `[header]` names, making the tables on the way.
    mutating func defineTable(at path: ArraySlice<String>, line: Int, name: String? = nil) throws(TOMLError) {
        let key = path.first!
        let name = name ?? path.joined(separator: ".")
        try withSubtable(key, line: line, origin: .implied) { (table) throws(TOMLError) in
            if path.count > 1 {
                try table.defineTable(at: path.dropFirst(), line: line, name: name)
                return
            }
            switch table.origin {
            case .implied:
                table.origin = .header
                table.line = line
            default:
                throw TOMLError(line: line, message: "[\(ControlText.excerpt(name))] is defined twice (first at line \(table.line))")
            }
        }
    }

    /// Runs `body` on the sub-table at `key`, made with `origin` if missing.
    private mutating func withSubtable(
        _ key: String, line: Int, origin: Origin, _ body: (inout TOMLTable) throws(TOMLError) -> Void
    ) throws(TOMLError) {
        guard let index = entries.firstIndex(where: { $0.key == key }) else {
            var table = TOMLTable(line: line, origin: origin)
            try body(&table)
            entries.append(Entry(key: key, value: .table(table), line: line))
            return
        }
        guard case .table(var table) = entries[index].value, table.origin != .inline else {
            throw TOMLError(line: line, message: "'\(ControlText.excerpt(key))' is already \(entries[index].value.typeName) "
                + "(line \(entries[index].line)); it can't also be a table")
        }
        try body(&table)
        entries[index].value = .table(table)
    }
}
