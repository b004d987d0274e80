import Glibc
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// Every signal that can be sent to the supervisor has a deliberate action.
@Suite(.timeLimit(.minutes(5))) struct SignalTableTests {
    /// What the table leaves out on purpose (see `SignalTable`): reaping, SIGPIPE, the uncatchable
    /// signals, the supervisor's own faults, and the C library's reserved real-time signals.
    static let leftOut: Set<Int32> = [SIGCHLD, SIGPIPE, SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, 32, 33]

    @Test func everySignalHasAnActionOrIsLeftOutOnPurpose() {
        for signal in Int32(1)...64 where !Self.leftOut.contains(signal) {
            #expect(SignalTable.standard.action(for: signal) != nil, "\(SignalName.describe(signal)) has no action")
        }
        for signal in Self.leftOut {
            #expect(SignalTable.standard.action(for: signal) == nil, "\(SignalName.describe(signal)) must stay out")
        }
    }

    @Test func controlSignalsKeepTheirDocumentedActions() {
        let table = SignalTable.standard
        #expect(table.action(for: SIGUSR1) == .background)
        #expect(table.action(for: SIGUSR2) == .foreground)
        #expect([SIGTERM, SIGINT, SIGHUP].map(table.action) == [.terminate, .terminate, .terminate])
        #expect([SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT].map(table.action) == [.stop, .stop, .stop, .ignore])
    }

    @Test(arguments: [SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGWINCH, SIGURG, SIGIO, 34, 64])
    func signalsFromOutsideAreForwarded(signal: Int32) {
        #expect(SignalTable.standard.action(for: signal) == .forward)
        #expect(SignalTable.standard.action(for: signal)?.order == .forward(.main), "to the main process, as tini")
    }

    /// `nohup supervise …`: SIGHUP ignored at start stays ignored (not taken, the children start
    /// with it ignored) unless `--signal` maps it; a signal the terminal does not send is taken anyway.
    @Test func terminalSignalsIgnoredAtStartStayIgnoredUnlessMapped() {
        let table = SignalTable.standard.remapping(SIGINT, to: .forward).keepingIgnored([SIGHUP, SIGINT, SIGUSR1])
        #expect(table.leftIgnored == [SIGHUP])
        #expect(table.action(for: SIGHUP) == nil && !table.signals.contains(SIGHUP))
        #expect(table.action(for: SIGINT) == .forward)
        #expect(table.action(for: SIGUSR1) == .background)
        #expect(SignalTable.standard.keepingIgnored([]).leftIgnored.isEmpty)
        #expect(SignalTable.standard.keepingIgnored([SIGQUIT]).action(for: SIGQUIT) == nil)
    }

    @Test func realTimeSignalsAreNamedFromRTMIN() {
        #expect(SignalName.describe(34) == "SIGRTMIN+0")
        #expect(SignalName.describe(37) == "SIGRTMIN+3")
        #expect(SignalName.describe(SIGQUIT) == "SIGQUIT")
    }

    /// Signal 29 is SIGIO in the log, the report, the docs and `--help` alike (glibc says POLL),
    /// and a user names it so.
    @Test func signal29IsSIGIO() throws {
        #expect(SignalName.describe(SIGIO) == "SIGIO")
        #expect(try SignalName.parseAny("IO") == SIGIO)
        #expect(try SignalName.parseAny("sigio") == SIGIO)
    }
}
