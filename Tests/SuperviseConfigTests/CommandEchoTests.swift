import Testing
@testable import SuperviseConfig

/// What the log says of a refused stdin line: quoted from a pipe or a file, never a word of it
/// from a terminal, where it may be a password typed for a child (issue 24, item 3).
@Suite(.timeLimit(.minutes(5))) struct CommandEchoTests {
    static let secret = "hunter2-Sesame"
    static let terminal = CommandEcho(fromTerminal: true)
    static let pipe = CommandEcho(fromTerminal: false)

    @Test func aTerminalWithholdsAndAPipeQuotes() {
        #expect(Self.terminal == .withheld)
        #expect(Self.pipe == .quoted)
    }

    /// Every kind of line the parser refuses, with the secret as the word at fault.
    @Test(arguments: ["\(secret)", "stauts", "background w \(secret)", "status \(secret)", "event w \(secret)!",
                      "event w push \(String(repeating: "x", count: 1000))\(secret)", "signal w \(secret)",
                      "signal w HUP \(secret)", "log-level \(secret)", "wait \(secret)", "wait active \(secret)=1",
                      "wait active timeout=\(secret)", "wait active w \(secret)", "sleep \(secret)", "sleep 1 \(secret)"])
    func aLineFromTheTerminalIsNotQuoted(line: String) throws {
        let error = try #require(ControlParserTests.error(line))
        let word = line == "stauts" ? "stauts" : Self.secret
        let withheld = Self.terminal.ignored(line: 3, error)
        #expect(withheld == "stdin line 3: ignored a line from the terminal: \(error.problem)")
        #expect(!withheld.contains(word) && !withheld.contains("did you mean"), "\(withheld)")
        let quoted = Self.pipe.ignored(line: 3, error)
        #expect(quoted == "stdin line 3: \(error.message)")
        #expect(quoted.contains(word) || quoted.contains("…"), "\(quoted)")
    }

    @Test func theProblemSaysWhatIsWrongAndWhatIsExpected() throws {
        #expect(ControlParserTests.error("statsu")?.problem == "unknown command: \(ControlParserTests.commandList)")
        #expect(ControlParserTests.error("sleep 1 \(Self.secret)")?.problem == "unexpected word: expected sleep DURATION")
        #expect(ControlParserTests.error("wait \(Self.secret)")?.problem
            == "unknown state: expected active, background, suspended, exited or not-running")
        #expect(ControlParserTests.error("sleep \(Self.secret)")?.problem
            == "invalid DURATION: \(DurationParser.acceptedForms)")
    }

    @Test func aRefusedCommandFromTheTerminalIsNotQuoted() {
        let line = "foreground \(Self.secret)"
        #expect(Self.terminal.refused(line: 4, line, Self.terminal.unknownChild(Self.secret, among: ["api", "db"]))
            == "stdin line 4: no child has that name (children: api, db)")
        #expect(Self.pipe.refused(line: 4, line, Self.pipe.unknownChild(Self.secret, among: ["api", "db"]))
            == "stdin line 4: '\(line)': no child named '\(Self.secret)' (children: api, db)")
        #expect(Self.terminal.refused(line: 5, "wait active", "timed out: api is background")
            == "stdin line 5: timed out: api is background")
    }
}
