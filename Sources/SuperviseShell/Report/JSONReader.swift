/// Why a text is not JSON: one line, with where (`line 3, column 14`).
public struct JSONSyntaxError: Error, Equatable, Sendable {
    public var message: String
}

/// Reads JSON text back into a ``JSONValue`` (for `supervise report`): RFC 8259, strict.
///
/// Integers that fit `Int64` become `.int`, other numbers `.double`. Nesting deeper than
/// ``maxDepth`` is refused rather than risking the stack.
public struct JSONReader {
    public static let maxDepth = 256

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The one JSON value `bytes` hold (whitespace around it allowed), or why not.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        if reader.index < bytes.count { throw reader.error("unexpected \(reader.found) after the end of the JSON value") }
        return value
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected \(found), expected a value")
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("unexpected \(found), expected a string key") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a key")
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
            try expect(UInt8(ascii: ","), "',' or '}' in an object")
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            if peek(UInt8(ascii: "]")) { index += 1; return .array(elements) }
            try expect(UInt8(ascii: ","), "',' or ']' in an array")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index  // start of the bytes copied as they are
        func flush(_ end: Int) throws(JSONSyntaxError) {
            guard run < end else { return }
            guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                throw JSONSyntaxError(message: "invalid UTF-8 in a string at \(place(of: run))")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                try flush(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(index)
                scalars.append(try escape())
                run = index
            case 0..<0x20:
                throw error("a control character in a string (it must be escaped)")
            default:
                index += 1
            }
        }
        throw error("unexpected end of input in a string")
    }

    /// The scalar of the escape at `index` (a backslash); moves past it.
    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        index += 1
        guard index < bytes.count else { throw error("unexpected end of input in a string") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high), peek(UInt8(ascii: "\\")), index + 1 < bytes.count,
               bytes[index + 1] == UInt8(ascii: "u") {
                index += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                    return scalar
                }
                return Unicode.Scalar(low) ?? "\u{FFFD}"
            }
            return Unicode.Scalar(high) ?? "\u{FFFD}"  // a lone surrogate
        default:
            index -= 1
            throw error("invalid escape: '\\' followed by \(found) in a string")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
              let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
              bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw error("'\\u' must be followed by four hex digits") }
        index += 4
        return value
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if peek(UInt8(ascii: "-")) { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("a number needs a digit after '-'") }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw JSONSyntaxError(message: "a number may not start with 0 at \(place(of: integerStart))")
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            index += 1
            isInteger = false
            guard digits() > 0 else { throw error("a number needs a digit after '.'") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            isInteger = false
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw error("a number needs a digit in its exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JSONSyntaxError(message: "the number \(text.prefix(40)) is out of range at \(place(of: start))")
        }
        return .double(double)
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("unexpected \(found), expected a value")
        }
        index += expected.count
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek(byte) else { throw error("unexpected \(found), expected \(what)") }
        index += 1
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    /// What is at `index`, for an error: `'x'`, `byte 0xff` or `end of input`.
    private var found: String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        return (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ what: String) -> JSONSyntaxError {
        JSONSyntaxError(message: "\(what) at \(place(of: index))")
    }

    /// `line 2, column 7` (columns count bytes), for the byte at `offset`.
    private func place(of offset: Int) -> String {
        var line = 1, lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return "line \(line), column \(offset - lineStart + 1)"
    }
}

extension JSONValue {
    /// The member named `key` of an object; `nil` for a missing key or another kind of value.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A number as a `Double` (`.int` or `.double`); `nil` otherwise.
    public var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// A number as an `Int`, its fraction dropped; `nil` for another kind of value and for a
    /// number no `Int` holds (`1e300`): a report read from a file never traps.
    public var integer: Int? {
        if case .int(let value) = self { return Int(exactly: value) }
        guard let value = number, value.isFinite, value.magnitude < 9.2e18 else { return nil }
        return Int(value)
    }

    /// The text of a `.string`; `nil` otherwise.
    public var text: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The elements of an `.array`; empty otherwise.
    public var elements: [JSONValue] {
        guard case .array(let values) = self else { return [] }
        return values
    }
}
