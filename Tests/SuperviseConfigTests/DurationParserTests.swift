import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct DurationParserTests {
    @Test(arguments: [
        ("2.5", Duration.milliseconds(2500)),
        ("0", .zero),
        (".3", .milliseconds(300)),
        ("2.", .seconds(2)),
        ("250ms", .milliseconds(250)),
        ("2s", .seconds(2)),
        ("1m", .seconds(60)),
        ("1.5m", .seconds(90)),
        ("2h", .seconds(7200)),
        ("500us", .microseconds(500)),
        ("0.000000001", .nanoseconds(1)),
        ("1.0000000015", .nanoseconds(1_000_000_001)),
        ("  7s\t", .seconds(7)),
        ("0ms", .zero),
        ("9223372036.854775807", .nanoseconds(Int64.max)),
        // Fraction digits below the nanosecond are dropped before the range check (found by FuzzTests).
        ("9223372036.8547758079", .nanoseconds(Int64.max)),
    ])
    func acceptsPlainSecondsAndUnits(text: String, expected: Duration) throws {
        #expect(try DurationParser.parse(text) == expected)
    }

    @Test(arguments: ["", "   ", "abc", "s", "ms", ".", "1..2", "2 s", "2S", "2sec", "1e3", "nan", "inf",
                      "+2", "0x10", "1,5", "2ss", "Ⅴs", "٣",
                      // A digit with a combining mark is one Character but not a digit (it once trapped).
                      "1\u{301}", "1\u{301}s", "0.5\u{301}", "\u{301}1"])
    func refusesGarbage(text: String) {
        #expect(throws: UsageError.self) { try DurationParser.parse(text) }
    }

    @Test(arguments: ["sleep 1\u{301}", "wait active timeout=1\u{301}s"])
    func commandsWithACombiningMarkInADurationAreRefused(line: String) {
        #expect(throws: ControlLineError.self) { try ControlParser.parse(line) }
    }

    @Test func errorQuotesTheValueAndTheAcceptedForms() {
        #expect(throws: UsageError("invalid duration 'soon': \(DurationParser.acceptedForms)")) {
            try DurationParser.parse("soon")
        }
        #expect(throws: UsageError("empty duration: \(DurationParser.acceptedForms)")) {
            try DurationParser.parse("")
        }
    }

    @Test(arguments: ["-1", "-0.5s", "-250ms"])
    func refusesNegative(text: String) throws {
        let error = try #require(throws: UsageError.self) { try DurationParser.parse(text) }
        #expect(error.message.contains("'\(text)'"))
        #expect(error.message.contains("must not be negative"))
    }

    @Test(arguments: ["9223372037", "2562048h", "99999999999999999999999s", "9223372036.854775808"])
    func refusesOverflow(text: String) throws {
        let error = try #require(throws: UsageError.self) { try DurationParser.parse(text) }
        #expect(error.message.contains("too long"))
        #expect(!error.message.contains("\n"))
    }
}

/// Errors quote a bounded excerpt of what was typed, whatever its length (found by FuzzTests).
@Suite(.timeLimit(.minutes(5))) struct BoundedExcerptTests {
    @Test func aLongDurationIsQuotedInPart() throws {
        let text = String(repeating: "9\u{301}", count: 5000)
        let error = try #require(throws: UsageError.self) { try DurationParser.parse(text) }
        #expect(error.message.utf8.count < 500, "\(error.message.utf8.count) bytes")
        #expect(error.message.contains("…"))
    }

    @Test func aLongControlLineIsQuotedInPart() throws {
        let line = "sleep 1 " + String(repeating: "x", count: 20000)
        let error = try #require(throws: ControlLineError.self) { try ControlParser.parse(line) }
        #expect(error.message.utf8.count < 500, "\(error.message.utf8.count) bytes")
    }

    @Test func aLongTOMLValueIsQuotedInPart() throws {
        let text = "window = " + String(repeating: "[", count: 10) + String(repeating: "x", count: 20000)
        let error = try #require(throws: TOMLError.self) { try TOMLParser.parse(text) }
        #expect(error.message.utf8.count < 500, "\(error.message.utf8.count) bytes")
    }

    @Test func shortTextIsQuotedWhole() {
        #expect(ControlText.excerpt("250 parsecs") == "250 parsecs")
        #expect(ControlText.excerpt(String(repeating: "a", count: 81)) == String(repeating: "a", count: 80) + "…")
    }
}

@Suite(.timeLimit(.minutes(5))) struct DurationNanosecondsTests {
    /// Saturates instead of trapping when the sub-second part takes it past `Int64.max`.
    @Test func saturatesJustPastTheMaximum() {
        #expect((Duration.seconds(9_223_372_036) + .milliseconds(900)).nanoseconds == Int64.max)
        #expect((Duration.seconds(-9_223_372_036) - .milliseconds(900)).nanoseconds == Int64.min)
    }
}
