import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct ControlParserTests {
    @Test(arguments: ["", "   ", "\t", "# a comment", "   # indented comment", "#background", "\r"])
    func ignoresBlankLinesAndComments(line: String) throws {
        #expect(try ControlParser.parse(line) == nil)
    }

    @Test(arguments: [
        ("background", ControlCommand.background(.unnamed)),
        ("background api", .background(.named("api"))),
        ("background all", .background(.all)),
        ("foreground", .foreground(.unnamed)),
        ("  foreground\tworker-2  ", .foreground(.named("worker-2"))),
        ("foreground all", .foreground(.all)),
        ("terminate", .terminate(.unnamed)),
        ("terminate db", .terminate(.named("db"))),
        ("terminate all", .terminate(.all)),
        ("status", .status),
        ("status\r", .status),
        ("background api # move it", .background(.named("api"))),
        ("status # what now", .status),
    ])
    func parsesTargetCommands(line: String, expected: ControlCommand) throws {
        #expect(try ControlParser.parse(line) == expected)
    }

    @Test(arguments: [
        ("event api push", ControlCommand.event(.named("api"), kind: "push", text: nil)),
        ("event all sync:v2 ", .event(.all, kind: "sync:v2", text: nil)),
        ("event api push new  message #42 ", .event(.named("api"), kind: "push", text: "new  message #42")),
        ("event api a.b_c-d:e\t\tpayload", .event(.named("api"), kind: "a.b_c-d:e", text: "payload")),
    ])
    func parsesEvents(line: String, expected: ControlCommand) throws {
        #expect(try ControlParser.parse(line) == expected)
    }

    @Test(arguments: [
        ("wait suspended", ControlCommand.wait(state: .suspended, target: .unnamed, timeout: .seconds(30))),
        ("wait active api", .wait(state: .active, target: .named("api"), timeout: .seconds(30))),
        ("wait background all timeout=2s", .wait(state: .background, target: .all, timeout: .seconds(2))),
        ("wait exited timeout=250ms", .wait(state: .exited, target: .unnamed, timeout: .milliseconds(250))),
        ("wait exited api timeout=0", .wait(state: .exited, target: .named("api"), timeout: .zero)),
        ("sleep 1.5", .sleep(.milliseconds(1500))),
        ("sleep 100ms # settle", .sleep(.milliseconds(100))),
    ])
    func parsesWaitAndSleep(line: String, expected: ControlCommand) throws {
        #expect(try ControlParser.parse(line) == expected)
    }

    @Test func theDefaultWaitTimeoutIs30Seconds() {
        #expect(ControlParser.defaultWaitTimeout == .seconds(30))
    }

    /// The error `line` gets, if any.
    static func error(_ line: String) -> ControlLineError? {
        do {
            _ = try ControlParser.parse(line)
            return nil
        } catch {
            return error
        }
    }

    static let commandList = "expected background, foreground, event, terminate, status, wait, sleep, signal, start, "
        + "restart, log-level, version, schedules or run-task"

    @Test func unknownCommandQuotesTheLineAndListsTheCommands() {
        #expect(Self.error("bakground api")?.message
            == "ignored 'bakground api': unknown command 'bakground' (did you mean 'background'?): \(Self.commandList)")
        #expect(Self.error("launch")?.message == "ignored 'launch': unknown command 'launch': \(Self.commandList)")
    }

    @Test(arguments: [
        ("background a b", "unexpected 'b': expected background [NAME]"),
        ("foreground a b", "unexpected 'b': expected foreground [NAME]"),
        ("terminate a b", "unexpected 'b': expected terminate [NAME]"),
        ("status api", "unexpected 'api': status takes no arguments"),
        ("event", "missing NAME: expected event NAME KIND [TEXT] (NAME may be all)"),
        ("event api", "missing KIND: expected event NAME KIND [TEXT]"),
        ("event api push!", "invalid KIND 'push!': expected letters, digits and . _ : -"),
        ("event api # push", "missing KIND: expected event NAME KIND [TEXT]"),
        ("wait", "missing STATE: expected wait STATE [NAME] [timeout=DURATION]"),
        ("wait frozen", "unknown state 'frozen': expected active, background, suspended, exited or not-running"),
        ("wait suspending", "unknown state 'suspending' (did you mean 'suspended'?): expected active, background, suspended, exited or not-running"),
        ("wait active api db", "unexpected 'db': expected wait STATE [NAME] [timeout=DURATION]"),
        ("wait active timeout=1s api", "unexpected 'api': expected wait STATE [NAME] [timeout=DURATION]"),
        ("wait active timout=1s", "unknown option 'timout': expected wait STATE [NAME] [timeout=DURATION]"),
        ("wait active timeout=1s timeout=2s", "timeout given twice: expected wait STATE [NAME] [timeout=DURATION]"),
        ("sleep", "missing DURATION: expected sleep DURATION"),
        ("sleep 1 2", "unexpected '2': expected sleep DURATION"),
    ])
    func refusesBadArguments(line: String, problem: String) {
        #expect(Self.error(line)?.message == "ignored '\(line)': \(problem)")
    }

    @Test(arguments: ["wait active timeout=soon", "wait active timeout=-1s", "wait active timeout=", "sleep forever",
                      "sleep -2"])
    func refusesBadDurations(line: String) throws {
        let error = try #require(throws: ControlLineError.self) { try ControlParser.parse(line) }
        #expect(error.message.hasPrefix("ignored '\(line)': "))
        #expect(error.message.hasSuffix(DurationParser.acceptedForms))
    }

    @Test func refusesAnEventTooLongForOneProtocolLine() throws {
        let fits = String(repeating: "x", count: ControlParser.maxEventBytes - "push ".count)
        #expect(try ControlParser.parse("event api push \(fits)") == .event(.named("api"), kind: "push", text: fits))
        let error = try #require(throws: ControlLineError.self) { try ControlParser.parse("event api push \(fits)y") }
        #expect(error.message.contains("too long"))
    }

    @Test func commandsAreCaseSensitive() {
        #expect(throws: ControlLineError.self) { try ControlParser.parse("Background") }
        #expect(throws: ControlLineError.self) { try ControlParser.parse("wait Active") }
    }

    @Test func errorsAreOneLine() throws {
        let error = try #require(throws: ControlLineError.self) { try ControlParser.parse("nope\r") }
        #expect(!error.message.contains("\n") && !error.message.contains("\r"))
        let embedded = try #require(throws: ControlLineError.self) { try ControlParser.parse("sleep 1\r2") }
        #expect(embedded.message.hasPrefix("ignored 'sleep 1\\r2': unexpected '2'"))
        #expect(Self.error("go\u{1B}[31m")?.message
            == "ignored 'go\\u001b[31m': unknown command 'go\\u001b[31m': \(Self.commandList)")
    }
}
