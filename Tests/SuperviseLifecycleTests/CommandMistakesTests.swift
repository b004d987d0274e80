import Testing
@testable import SuperviseLifecycle

/// Which stdin sources end the run on a command that can't be run as written.
@Suite(.timeLimit(.minutes(5))) struct CommandMistakesTests {
    @Test func onlyAScriptWithoutKeepGoingEndsTheRun() {
        #expect(CommandMistakes(fromTerminal: false, keepGoing: false) == .endTheRun)
        #expect(CommandMistakes(fromTerminal: false, keepGoing: true) == .logged)
        #expect(CommandMistakes(fromTerminal: true, keepGoing: false) == .logged)
        #expect(CommandMistakes(fromTerminal: true, keepGoing: true) == .logged)
    }
}
