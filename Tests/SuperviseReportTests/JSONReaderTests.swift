import Testing
@testable import SuperviseShell
@testable import SuperviseReport

/// Reading JSON back (`supervise report`): what the report writer writes reads back equal, and
/// malformed text is refused with one line saying what and where.
@Suite(.timeLimit(.minutes(5))) struct JSONReaderTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try JSONReader.parse(Array(text.utf8)) }

    @Test func whatTheWriterWritesReadsBackEqual() throws {
        let value = JSONValue.object([
            ("version", .int(2)), ("empty", .object([])), ("none", .array([])), ("null", .null),
            ("flags", .array([.bool(true), .bool(false)])), ("t_ms", .double(2021.387)), ("negative", .int(-7)),
            ("big", .int(Int64.max)), ("text", .string("quote \" backslash \\ tab \t \u{1B}[2J é 😀 \u{7F}")),
        ])
        let read = try parse(value.serialized())
        #expect(read == value)
        #expect(read["t_ms"]?.number == 2021.387)
        #expect(read["big"] == .int(Int64.max))
    }

    @Test func escapesSurrogatePairsAndWhitespace() throws {
        let read = try parse(" \n\t{ \"a\" : [ \"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\" , 1e3 , -0.5 , 100000000000000000000 ] }\r\n")
        #expect(read["a"]?.elements.first == .string("é😀/\u{08}\u{0C}\n\r"))
        #expect(read["a"]?.elements.dropFirst().map(\.number) == [1000, -0.5, 1e20])
        #expect(try parse("\"\\ud800x\"") == .string("\u{FFFD}x"), "a lone surrogate")
    }

    @Test(arguments: [
        ("", "unexpected end of input, expected a value at line 1, column 1"),
        ("{\"a\":1,}", "unexpected '}', expected a string key at line 1, column 8"),
        ("[1 2]", "unexpected '2', expected ',' or ']' in an array at line 1, column 4"),
        ("{\"a\" 1}", "unexpected '1', expected ':' after a key at line 1, column 6"),
        ("{\n  \"a\": tru\n}", "unexpected 't', expected a value at line 2, column 8"),
        ("\"abc", "unexpected end of input in a string at line 1, column 5"),
        ("\"a\u{01}\"", "a control character in a string (it must be escaped) at line 1, column 3"),
        ("\"\\x\"", "invalid escape: '\\' followed by 'x' in a string at line 1, column 3"),
        ("\"\\u12g4\"", "'\\u' must be followed by four hex digits at line 1, column 4"),
        ("\"\\u+123\"", "'\\u' must be followed by four hex digits at line 1, column 4"),
        ("01", "a number may not start with 0 at line 1, column 1"),
        ("-", "a number needs a digit after '-' at line 1, column 2"),
        ("1.", "a number needs a digit after '.' at line 1, column 3"),
        ("1e", "a number needs a digit in its exponent at line 1, column 3"),
        ("1e999", "the number 1e999 is out of range at line 1, column 1"),
        ("{} x", "unexpected 'x' after the end of the JSON value at line 1, column 4"),
        ("\u{FEFF}{}", "unexpected byte 0xef, expected a value at line 1, column 1"),
    ])
    func malformedTextIsOneClearLine(_ text: String, _ message: String) {
        #expect(throws: JSONSyntaxError(message: message)) { try parse(text) }
    }

    @Test func invalidUTF8AndDeepNestingAreRefused() {
        #expect(throws: JSONSyntaxError(message: "invalid UTF-8 in a string at line 1, column 2")) {
            try JSONReader.parse([0x22, 0xFF, 0xFE, 0x22])
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError(message: "nested deeper than 256 levels at line 1, column 257")) { try parse(deep) }
        let allowed = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try parse(allowed) }
    }

    @Test func everyMessageIsOneLine() {
        for text in ["{\n\n\"a\u{0A}\"", "[\u{0B}]", "\"\\\u{0A}\""] {
            do {
                _ = try parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(!error.message.contains("\n"), "\(error.message)")
            }
        }
    }
}
