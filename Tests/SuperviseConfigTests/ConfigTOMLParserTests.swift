import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct ConfigTOMLParserTests {
    private func value(_ text: String) throws -> TOMLValue {
        try #require(TOMLParser.parse("v = \(text)")["v"]).value
    }

    @Test(arguments: [
        String(repeating: "[", count: 40_000),
        String(repeating: "{ a = ", count: 50_000),
        String(repeating: "[", count: TOMLParser.maxNesting + 1) + String(repeating: "]", count: TOMLParser.maxNesting + 1),
    ])
    func deepNestingIsRefusedNotAStackOverflow(text: String) {
        #expect(throws: TOMLError(line: 1, message: "arrays and inline tables nested more than \(TOMLParser.maxNesting) deep")) {
            try TOMLParser.parse("command = " + text)
        }
    }

    /// TOML ignores spaces around a header's key; a leading one was refused (found by FuzzTests).
    @Test func headerKeysMayHaveSpacesAround() throws {
        let root = try TOMLParser.parse("[ child . api ]\nv = 1\n[\t\"x y\"\t]\n")
        guard case .table(let child) = try #require(root["child"]).value else { Issue.record("no table"); return }
        #expect(child["api"] != nil)
        #expect(root["x y"] != nil)
    }

    @Test func nestingUpToTheBoundIsRead() throws {
        let depth = TOMLParser.maxNesting
        var value = try value(String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth))
        for _ in 0..<depth {
            guard case .array(let elements) = value, let first = elements.first else { Issue.record("not nested: \(value)"); return }
            value = first
        }
        #expect(value == .integer(1))
    }

    @Test func keepsKeysInOrderWithTheirLines() throws {
        let root = try TOMLParser.parse("""
            # header comment
            b = 1
            a = 2

            [child.zeta]
            x = true
            [child.alpha]
            """)
        #expect(root.entries.map(\.key) == ["b", "a", "child"])
        #expect(root.entries.map(\.line) == [2, 3, 5])
        guard case .table(let child) = root["child"]?.value else { Issue.record("no child table"); return }
        #expect(child.entries.map(\.key) == ["zeta", "alpha"])
        guard case .table(let zeta) = child["zeta"]?.value, case .table(let alpha) = child["alpha"]?.value else {
            Issue.record("no child tables"); return
        }
        #expect(zeta.line == 5 && alpha.line == 7)
        #expect(zeta["x"] == TOMLTable.Entry(key: "x", value: .boolean(true), line: 6))
    }

    @Test(arguments: [
        ("\"a\\tb\\\"c\\\\d\\u00e9\\U0001F600\"", TOMLValue.string("a\tb\"c\\dé😀")),
        ("'C:\\path\\n'", .string("C:\\path\\n")),
        ("\"\"", .string("")),
        ("42", .integer(42)),
        ("-17", .integer(-17)),
        ("+3", .integer(3)),
        ("1_000", .integer(1000)),
        ("0x1F", .integer(31)),
        ("0o17", .integer(15)),
        ("0b101", .integer(5)),
        ("0", .integer(0)),
        ("2.5", .float(2.5, text: "2.5")),
        ("-0.5", .float(-0.5, text: "-0.5")),
        ("1e3", .float(1000, text: "1e3")),
        ("6.25E-1", .float(0.625, text: "6.25E-1")),
        ("true", .boolean(true)),
        ("false", .boolean(false)),
        ("[]", .array([])),
        ("[1, \"two\", [3]]", .array([.integer(1), .string("two"), .array([.integer(3)])])),
    ])
    func readsValues(text: String, expected: TOMLValue) throws {
        #expect(try value(text) == expected)
    }

    @Test func readsSpecialFloats() throws {
        #expect(try value("inf") == .float(.infinity, text: "inf"))
        #expect(try value("-inf") == .float(-.infinity, text: "-inf"))
        guard case .float(let nan, _) = try value("nan") else { Issue.record("nan is not a float"); return }
        #expect(nan.isNaN)
    }

    @Test func readsArraysAcrossLinesWithCommentsAndATrailingComma() throws {
        let root = try TOMLParser.parse("""
            command = [
              "./api",   # the program
              "--port",
              "8080",
            ]
            next = 1
            """)
        #expect(root["command"]?.value == .array([.string("./api"), .string("--port"), .string("8080")]))
        #expect(root["next"]?.line == 6)
    }

    @Test func readsInlineTablesAndDottedKeys() throws {
        let root = try TOMLParser.parse("""
            env = { LOG_LEVEL = "debug", "QUOTED KEY" = 'x', nested.deep = 1 }
            site."example.com".port = 80
            """)
        guard case .table(let env) = root["env"]?.value else { Issue.record("env is not a table"); return }
        #expect(env.entries.map(\.key) == ["LOG_LEVEL", "QUOTED KEY", "nested"])
        guard case .table(let site) = root["site"]?.value, case .table(let host) = site["example.com"]?.value else {
            Issue.record("dotted keys made no tables"); return
        }
        #expect(host["port"]?.value == .integer(80))
    }

    @Test func acceptsCRLFLineEnds() throws {
        let root = try TOMLParser.parse("a = 1\r\n[t]\r\nb = 'x'\r\n")
        #expect(root["a"]?.value == .integer(1))
        #expect(root["t"]?.line == 2)
    }

    @Test(arguments: [
        ("a = ", 1, "expected a value"),
        ("a 1", 1, "expected '=' after the key 'a', found '1'"),
        ("a", 1, "expected '=' after the key 'a'"),
        ("a = 1 2", 1, "expected the end of the line, found '2'"),
        ("\n\na = \"open", 3, "unterminated string: add the closing \""),
        ("a = 'open", 1, "unterminated string: add the closing '"),
        ("a = \"\\x\"", 1, "invalid escape '\\x': use \\\\, \\\", \\b, \\t, \\n, \\f, \\r, \\uXXXX or \\UXXXXXXXX"),
        ("a = \"\\u12\"", 1, "invalid escape: \\u needs 4 hex digits"),
        ("a = \"\\uD800\"", 1, "invalid escape: U+D800 is not a Unicode scalar value"),
        ("a = \"\"\"x\"\"\"", 1, "multi-line strings (\"\"\") are not supported; write \\n in a \"...\" string"),
        ("a = '''x'''", 1, "multi-line strings (''') are not supported; write \\n in a \"...\" string"),
        ("a = [1,\n2", 1, "unterminated array: add the closing ']'"),
        ("a = [1 2]", 1, "expected ',' or ']' in the array, found '2]'"),
        ("a = { b = 1,\n c = 2 }", 1, "expected a key"),
        ("a = { b = 1 c = 2 }", 1, "expected ',' or '}' in the inline table (it must fit on one line)"),
        ("a = hello", 1, "invalid value 'hello': strings need quotes (\"...\")"),
        ("a = 01", 1, "invalid value '01': strings need quotes (\"...\")"),
        ("a = 1__0", 1, "invalid value '1__0': strings need quotes (\"...\")"),
        ("a = 1979-05-27", 1, "dates and times are not supported: '1979-05-27'"),
        ("a = 07:32:00", 1, "dates and times are not supported: '07:32:00'"),
        ("[[child]]", 1, "arrays of tables ([[...]]) are not supported; use [child.NAME] tables"),
        ("[child.a", 1, "expected ']' to close the table header"),
        ("a! = 1", 1, "expected '=' after the key 'a', found '! = 1'"),
        ("!a = 1", 1, "invalid key character '!'; quote keys that are not A-Za-z0-9_-"),
        ("a = 1\na = 2", 2, "duplicate key 'a' (first at line 1)"),
        ("[t]\n[t]", 2, "[t] is defined twice (first at line 1)"),
        ("[child.api]\nx = 1\n[child.api]", 3, "[child.api] is defined twice (first at line 1)"),
        ("a = 1\n[a]", 2, "'a' is already an integer (line 1); it can't also be a table"),
        ("e = {}\n[e]", 2, "'e' is already a table (line 1); it can't also be a table"),
        ("[t]\nb = 1\n[t.b]", 3, "'b' is already an integer (line 2); it can't also be a table"),
        ("[a.b]\n[a]\nb.c = 1", 3, "dotted key 'b' extends a table defined at line 1"),
        ("a = \"tab\tok but bell \u{07}\"", 1, "control character U+0007 in a string; write it as an escape"),
    ])
    func reportsSyntaxErrorsWithTheLine(text: String, line: Int, message: String) {
        #expect(throws: TOMLError(line: line, message: message)) { try TOMLParser.parse(text) }
    }

    @Test func anImpliedTableMayBeDefinedLater() throws {
        let root = try TOMLParser.parse("[child.api]\nx = 1\n[child]\ny = 2")
        guard case .table(let child) = root["child"]?.value else { Issue.record("no child table"); return }
        #expect(child.line == 3)
        #expect(child.entries.map(\.key) == ["api", "y"])
    }

    @Test func arbitraryInputIsParsedOrRefusedWithALineInRange() {
        let alphabet = Array("ab= \t\n\r\"'[]{},.#\\u0_+-1e:x𝄞")
        var seed: UInt64 = 0x5EED
        for _ in 0..<3000 {
            var text = ""
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            for _ in 0..<Int(seed >> 58) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                text.append(alphabet[Int(seed >> 33) % alphabet.count])
            }
            let lines = text.unicodeScalars.filter { $0 == "\n" }.count + 1
            do {
                _ = try TOMLParser.parse(text)
            } catch {
                #expect((1...lines).contains(error.line), "line \(error.line) of \(lines) for \(text.debugDescription)")
            }
        }
    }
}
