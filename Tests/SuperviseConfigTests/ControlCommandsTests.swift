import Glibc
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// The commands added for control from outside (`signal`, `start`, `restart`, `log-level`,
/// `version`), the outcome line of the control socket, and `--signal SIG=ACTION`.
@Suite(.timeLimit(.minutes(5))) struct ControlCommandsTests {
    @Test(arguments: [
        ("signal api HUP", ControlCommand.signal(.named("api"), signal: SIGHUP, to: .main)),
        ("signal all sigusr2", .signal(.all, signal: SIGUSR2, to: .main)),
        ("signal w 9", .signal(.named("w"), signal: SIGKILL, to: .main)),
        ("signal w RTMIN+2", .signal(.named("w"), signal: SignalName.realTimeSignals.lowerBound + 2, to: .main)),
        ("signal api HUP main", .signal(.named("api"), signal: SIGHUP, to: .main)),
        ("signal api HUP group", .signal(.named("api"), signal: SIGHUP, to: .group)),
        ("signal all TERM tree", .signal(.all, signal: SIGTERM, to: .tree)),
        ("start", .start(.unnamed)),
        ("start api", .start(.named("api"))),
        ("restart all", .restart(.all)),
        ("log-level debug", .logLevel("debug")),
        ("version", .version),
    ])
    func parses(line: String, expected: ControlCommand) throws {
        #expect(try ControlParser.parse(line) == expected)
    }

    @Test(arguments: [
        ("signal", "ignored 'signal': missing NAME: expected signal NAME SIG [main|group|tree] (NAME may be all)"),
        ("signal w", "ignored 'signal w': missing SIG: expected signal NAME SIG [main|group|tree] (NAME may be all)"),
        ("signal w HUP x", "ignored 'signal w HUP x': unknown target 'x': expected signal NAME SIG [main|group|tree] "
            + "(NAME may be all)"),
        ("signal w HUP tree x", "ignored 'signal w HUP tree x': unexpected 'x': expected signal NAME SIG "
            + "[main|group|tree] (NAME may be all)"),
        ("signal w 65", "ignored 'signal w 65': unknown signal '65': use a name (TERM, USR1, RTMIN+2, ...) or a number from 1 to 64"),
        ("start a b", "ignored 'start a b': unexpected 'b': expected start [NAME]"),
        ("log-level loud", "ignored 'log-level loud': unknown level 'loud': expected log-level LEVEL, LEVEL one of "
            + "trace, debug, info, notice, warning, error, critical"),
        ("version 2", "ignored 'version 2': unexpected '2': version takes no arguments"),
    ])
    func refusesWhatIsNotWritten(line: String, message: String) {
        #expect(ControlParserTests.error(line)?.message == message)
    }

    @Test func theOutcomeLineRoundTrips() {
        #expect(ControlOutcome.ok.line == "ok")
        #expect(ControlOutcome.parse("ok") == .ok)
        let refused = ControlOutcome.error(.refused, "w: cannot start:\nit is active")
        #expect(refused.line == "error refused w: cannot start:\\nit is active", "one line")
        #expect(ControlOutcome.parse(refused.line) == .error(.refused, "w: cannot start:\\nit is active"))
        #expect(ControlOutcome.parse("error wait-failed timed out: w is active") == .error(.waitFailed, "timed out: w is active"))
        #expect(ControlOutcome.parse("{\"name\":\"ok\"}") == nil)
        #expect(ControlOutcome.parse("error nonsense x") == nil)
        #expect(ControlErrorCode.allCases.map(\.exitStatus) == [2, 2, 2, 2, 123])
    }

    @Test func aSignalIsRemappedToAnyAction() throws {
        let (signal, action) = try SignalTable.parseMapping("USR1=forward")
        #expect(signal == SIGUSR1 && action == .forward)
        let table = SignalTable.standard.remapping(signal, to: action).remapping(SIGHUP, to: .forward)
        #expect(table.action(for: SIGUSR1) == .forward && table.action(for: SIGHUP) == .forward)
        #expect(table.action(for: SIGUSR2) == .foreground, "the rest keep theirs")
        #expect(table.signals == SignalTable.standard.signals)
        #expect(try SignalTable.parseMapping("sigquit=terminate") == (SIGQUIT, .terminate))
    }

    /// `forward` reaches the main process; the group and the tree are asked for by name.
    @Test func aForwardNamesWhoItReaches() throws {
        #expect(try SignalTable.parseMapping("HUP=forward") == (SIGHUP, .forward))
        #expect(try SignalTable.parseMapping("HUP=forward-group") == (SIGHUP, .forwardGroup))
        #expect(try SignalTable.parseMapping("HUP=forward-tree") == (SIGHUP, .forwardTree))
        #expect(SignalAction.allCases.map(\.order) == [.background, .foreground, .terminate, .forward(.main), .forward(.group),
                                                       .forward(.tree), .stop, .ignore])
    }

    @Test(arguments: [
        ("USR1", "'USR1': expected SIG=ACTION, ACTION one of background, foreground, terminate, forward, forward-group, forward-tree, stop, ignore"),
        ("USR1=pause", "unknown action 'pause': expected SIG=ACTION, ACTION one of background, foreground, terminate, forward, forward-group, forward-tree, stop, ignore"),
        ("KILL=ignore", "SIGKILL can't be remapped: the supervisor can't take it (KILL, STOP, CHLD, PIPE and the fault signals keep their meaning)"),
        ("CHLD=forward", "SIGCHLD can't be remapped: the supervisor can't take it (KILL, STOP, CHLD, PIPE and the fault signals keep their meaning)"),
        ("NOPE=ignore", "unknown signal 'NOPE': use a name (TERM, USR1, RTMIN+2, ...) or a number from 1 to 64"),
    ])
    func aBadMappingIsOneLine(text: String, message: String) {
        #expect(throws: UsageError(message)) { try SignalTable.parseMapping(text) }
    }
}
