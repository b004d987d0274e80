import Glibc
import Testing
@testable import SuperviseConfig

/// The terminal's rules (docs/cli.md, "Terminals and shells"): who may hand it out, when it is
/// given back, and what a job-control stop means.
@Suite(.timeLimit(.minutes(5))) struct TerminalJobControlTests {
    static let own: Int32 = 100, shell: Int32 = 50, child: Int32 = 200, other: Int32 = 300

    /// In the foreground a launch takes the terminal; started with `&` (the shell's group holds
    /// it) or without a controlling terminal, never.
    @Test func aLaunchTakesTheTerminalOnlyFromTheSupervisorsOwnGroup() {
        var control = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        #expect(control.handsOver(foreground: Self.own))
        #expect(!control.handsOver(foreground: Self.shell))
        #expect(!control.handsOver(foreground: nil))
        control.handedOver(to: Self.child)
        #expect(control.handsOver(foreground: Self.child), "a second child takes it from the first")
        #expect(!control.handsOver(foreground: Self.shell))
    }

    /// The holder's exit gives it back to the supervisor's group, once; an exit of another
    /// child, or a terminal someone else took meanwhile, is left alone.
    @Test func theTerminalGoesBackWhenItsHolderIsGone() {
        var control = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        control.handedOver(to: Self.child)
        #expect(control.takeBack(from: Self.other, foreground: Self.child) == nil)
        #expect(control.takeBack(from: Self.child, foreground: Self.child) == Self.own)
        #expect(control.takeBack(foreground: Self.child) == nil, "given back once")

        control.handedOver(to: Self.child)
        #expect(control.takeBack(foreground: Self.shell) == nil, "the shell took it: not stolen back")
        #expect(control.takeBack(foreground: Self.child) == nil)

        var outside = TerminalJobControl(ownGroup: 0, isPID1: true)
        outside.handedOver(to: Self.child)
        #expect(outside.takeBack(from: Self.child, foreground: Self.child) == nil, "a group outside the namespace can't be named")

        let never = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        var copy = never
        #expect(copy.takeBack(foreground: Self.child) == nil, "never handed: nothing to give back")
    }

    /// Ctrl-Z to a supervisor in the terminal's foreground stops the job; in the background
    /// (a `kill -TSTP`) or as pid 1 it is ignored.
    @Test func aStopSignalStopsTheJobOnlyInTheForegroundAndNotAsPID1() {
        let control = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        #expect(control.stop(bySignal: SIGTSTP, foreground: Self.own)
                == .stopJob(forward: SIGTSTP, wholeGroup: false, takeBackTerminal: false))
        #expect(control.stop(bySignal: SIGTTIN, foreground: Self.own)
                == .stopJob(forward: SIGTTIN, wholeGroup: false, takeBackTerminal: false))
        guard case .ignore = control.stop(bySignal: SIGTSTP, foreground: Self.shell) else {
            Issue.record("a background supervisor must not stop")
            return
        }
        guard case .ignore = control.stop(bySignal: SIGTSTP, foreground: nil) else {
            Issue.record("without a terminal nothing would continue it")
            return
        }
        let pid1 = TerminalJobControl(ownGroup: 1, isPID1: true)
        guard case .ignore = pid1.stop(bySignal: SIGTSTP, foreground: 1) else {
            Issue.record("pid 1 must not stop")
            return
        }
    }

    /// The child holding the terminal stopped by SIGTSTP is Ctrl-Z: the job stops, with the
    /// supervisor's whole group; as pid 1 the child is continued instead. Other stops are the child's.
    @Test func aCtrlZOfTheChildHoldingTheTerminalStopsTheJob() {
        var control = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        control.handedOver(to: Self.child)
        #expect(control.stop(ofChildGroup: Self.child, by: SIGTSTP, foreground: Self.child)
                == .stopJob(forward: SIGTSTP, wholeGroup: true, takeBackTerminal: true))
        #expect(control.stop(ofChildGroup: Self.child, by: SIGSTOP, foreground: Self.child) == nil, "a freezer's or someone's STOP")
        #expect(control.stop(ofChildGroup: Self.child, by: SIGTTIN, foreground: Self.child) == nil)
        #expect(control.stop(ofChildGroup: Self.other, by: SIGTSTP, foreground: Self.child) == nil)
        #expect(control.stop(ofChildGroup: Self.child, by: SIGTSTP, foreground: Self.shell) == nil)

        var pid1 = TerminalJobControl(ownGroup: 1, isPID1: true)
        pid1.handedOver(to: Self.child)
        #expect(pid1.stop(ofChildGroup: Self.child, by: SIGTSTP, foreground: Self.child) == .continueChild)
    }

    /// `fg` hands the terminal back to the child that held it; `bg` leaves it to the shell, and
    /// nothing is handed later.
    @Test func fgHandsTheTerminalBackAndBgDoesNot() {
        var control = TerminalJobControl(ownGroup: Self.own, isPID1: false)
        control.handedOver(to: Self.child)
        #expect(control.resumed(tookBack: true, foreground: Self.own) == Self.child)
        #expect(control.resumed(tookBack: false, foreground: Self.own) == nil)
        #expect(control.resumed(tookBack: true, foreground: Self.shell) == nil)
        #expect(control.resumed(tookBack: true, foreground: Self.own) == nil, "after bg the child no longer holds it")
    }

    /// The hint comes for a terminal's stop or an exit within a second under `--control stdin`
    /// at a terminal; never elsewhere, nor for a child that ran a while or another stop.
    @Test func theControlHintComesOnlyForAChildThatWantedTheTerminal() {
        #expect(ControlHint.stopped(by: SIGTTIN, stdinControlAtTerminal: true)?.contains("--control none") == true)
        #expect(ControlHint.stopped(by: SIGTTOU, stdinControlAtTerminal: true) != nil)
        #expect(ControlHint.stopped(by: SIGTSTP, stdinControlAtTerminal: true) == nil)
        #expect(ControlHint.stopped(by: SIGTTIN, stdinControlAtTerminal: false) == nil)
        #expect(ControlHint.exited(after: .milliseconds(20), stdinControlAtTerminal: true)?.contains("--control none") == true)
        #expect(ControlHint.exited(after: .seconds(1), stdinControlAtTerminal: true) == nil)
        #expect(ControlHint.exited(after: .milliseconds(20), stdinControlAtTerminal: false) == nil)
    }
}
