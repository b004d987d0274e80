import Testing
@testable import SuperviseConfig
import SuperviseLifecycle

/// Which children a failed `wait` is about, for the CI results.
@Suite(.timeLimit(.minutes(5))) struct CommandHoldCulpritTests {
    let children = [CommandHold.Child(name: "a", state: .suspended, isDone: false),
                    CommandHold.Child(name: "b", state: .background, isDone: false),
                    CommandHold.Child(name: "c", state: .exited, isDone: true)]

    func wait(_ target: ControlTarget) -> CommandHold {
        .wait(state: .suspended, target: target, deadline: .zero, line: 1, text: "wait suspended")
    }

    @Test func aWaitForAllIsAboutTheChildrenNotInItsState() {
        #expect(wait(.all).culprits(among: children) == ["b", "c"])
    }

    @Test func aWaitForOneChildIsAboutThatChildOnly() {
        #expect(wait(.named("c")).culprits(among: children) == ["c"])
        #expect(wait(.named("a")).culprits(among: children) == [])
    }

    @Test func aSleepIsAboutNoChild() {
        #expect(CommandHold.sleep(until: .zero).culprits(among: children) == [])
    }
}
