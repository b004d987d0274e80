import Testing
@testable import SuperviseLifecycle

/// Where a command's refusals go (docs/cli.md, "Control socket", "End of input"): to the log
/// for stdin, to the client alone for the control socket, nowhere for a signal; and only a
/// stdin mistake can end the run.
@Suite(.timeLimit(.minutes(5))) struct CommandRoutingTests {
    private static let script = CommandSource.stdin(line: 3, mistakes: .endTheRun)

    @Test func aRefusalGoesBackWhereTheCommandCameFrom() {
        #expect(RunCore.refusal("busy", of: "start web", from: Self.script)
            == [.refuseOnStdin(line: 3, text: "start web", reason: "busy")])
        #expect(RunCore.refusal("busy", of: "start web", from: .client) == [.refuseToClient(text: "start web", reason: "busy")])
        #expect(RunCore.refusal("busy", of: "", from: nil) == [], "a signal has nobody to answer")
    }

    @Test func aClientsRejectedLineIsItsOwnAndTheRunGoesOn() {
        var run = RunHarness(children: 1)
        #expect(run.handle(.commandRejected(text: "", .blank, from: .client))
            == [.usageErrorToClient("no command: the line is blank or a comment")])
        #expect(run.handle(.commandRejected(text: "bakground", .unparsable(message: "ignored 'bakground'", problem: "unknown command"),
                                            from: .client)) == [.usageErrorToClient("ignored 'bakground'")])
        #expect(run.handle(.commandRejected(text: "stop db", .unrunnable(reason: "no child named 'db'"), from: .client))
            == [.refuseToClient(text: "stop db", reason: "no child named 'db'")])
        #expect(run.cores[0].status.state == .active)
        run.endEveryChild([0])
        #expect(run.run.exitStatus == 0, "a client's mistake leaves the run's status alone")
    }

    @Test func aScriptedLineThatIsNoCommandEndsTheRunAndABlankOneIsNothing() {
        var run = RunHarness(children: 1)
        #expect(run.handle(.commandRejected(text: "# a comment", .blank, from: Self.script)) == [])
        let actions = run.handle(.commandRejected(text: "bakground", .unparsable(message: "ignored 'bakground'", problem: "unknown command"),
                                                  from: Self.script))
        #expect(actions.prefix(3) == [.ignoreOnStdin(line: 3, message: "ignored 'bakground'", problem: "unknown command"),
                                      .stopCommands,
                                      .stepFailed(.command, line: 3, text: "bakground", reason: "ignored 'bakground'", children: [])])
        #expect(run.cores[0].status.state == .terminating)
        run.endEveryChild([0])
        #expect(run.run.exitStatus == 123)
    }
}
