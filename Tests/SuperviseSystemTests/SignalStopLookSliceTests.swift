import Glibc
import Testing
@testable import SuperviseSystem

/// The look at a suspended sigstop tree for a change from outside (before a `status` or a
/// command) is done in slices too, one turn of the loop each (``SliceBudget``): against a
/// ``FakeKernel``, each look's reads are counted, and what it finds is checked.
@Suite(.timeLimit(.minutes(5))) struct SignalStopLookSliceTests {
    let fixture: SignalStopFixture
    var kernel: FakeKernel { fixture.kernel }
    var freezer: SignalStopFreezer { fixture.freezer }
    var unit: SignalStopUnit { fixture.unit }

    init() throws {
        fixture = try SignalStopFixture()
    }

    /// Looks once a turn until the look ends: what each turn's look answered, and the most files one read.
    private func lookTurnByTurn() -> (answers: [OutsideChange?], mostReads: Int) {
        var answers: [OutsideChange?] = [], mostReads = 0
        repeat {
            freezer.endMoment()
            let before = kernel.procReads
            answers.append(unit.outsideChange())
            mostReads = max(mostReads, kernel.procReads - before)
        } while answers.last == .lookGoesOn && answers.count < 100
        return (answers, mostReads)
    }

    /// Nothing changed: the look goes on over several turns, none reads more than a turn's
    /// share, and it ends finding nothing. Asked again in the moment it ended (the command that
    /// waited for it runs), it reads nothing; at the next moment a new look begins.
    @Test func aLookAtALargeTreeGoesOnTurnByTurnAndEndsFindingNothing() throws {
        try fixture.freezeLargeTree()
        let (answers, mostReads) = lookTurnByTurn()
        #expect(answers.last == .some(nil), "the look ended with \(String(describing: answers.last))")
        #expect(answers.dropLast().allSatisfy { $0 == .lookGoesOn } && answers.count >= 4, "\(answers.count) turns")
        #expect(mostReads <= SliceBudget.stepsPerTurn * 2, "one turn's look read \(mostReads) files")
        #expect(!unit.looksOn)
        let before = kernel.procReads
        #expect(unit.outsideChange() == nil)
        #expect(kernel.procReads == before, "the look made again in its moment read \(kernel.procReads - before) files")
        freezer.endMoment()
        #expect(unit.outsideChange() == .lookGoesOn, "the next moment's look did not begin")
    }

    /// A process continued from outside before the look began is found by it, in whichever
    /// turn reaches it.
    @Test func aProcessContinuedBeforeTheLookIsFoundByIt() throws {
        try fixture.freezeLargeTree()
        _ = kernel.kill(101_030, SIGCONT)
        let found = lookTurnByTurn().answers.last
        #expect(found == .thawed("process 101030 was continued"), "\(String(describing: found))")
    }

    /// One continued while a look goes on is found by it, or by the next look when this one had
    /// looked at it already.
    @Test func aProcessContinuedDuringTheLookIsFoundByItOrTheNext() throws {
        try fixture.freezeLargeTree()
        freezer.endMoment()
        #expect(unit.outsideChange() == .lookGoesOn)
        _ = kernel.kill(101_040, SIGCONT)
        var found = lookTurnByTurn().answers.last
        if found == .some(nil) { found = lookTurnByTurn().answers.last }
        #expect(found == .thawed("process 101040 was continued"), "\(String(describing: found))")
    }

    /// A look that ended in a moment (a `status`'s) is not made again in it, but a continue
    /// seen after it (SIGCHLD) makes the next look read again: a process continued from outside
    /// in the same turn as the `status` is found.
    @Test func aContinueSeenAfterALookInTheSameMomentIsLookedAt() throws {
        try fixture.freezeLargeTree()
        var answers = lookTurnByTurn().answers
        #expect(answers.last == .some(nil))
        _ = kernel.kill(101_050, SIGCONT)
        #expect(unit.outsideChange() == nil, "looked again in the moment its look ended")
        freezer.processContinued()
        answers = [unit.outsideChange()]
        while answers.last == .lookGoesOn, answers.count < 100 {
            freezer.endMoment()
            answers.append(unit.outsideChange())
        }
        #expect(answers.last == .thawed("process 101050 was continued"), "\(String(describing: answers.last))")
    }

    /// A thaw ends the look under way: the next look begins with the next freeze, from its own
    /// stopped processes.
    @Test func aThawEndsTheLookUnderWay() throws {
        try fixture.freezeLargeTree()
        freezer.endMoment()
        #expect(unit.outsideChange() == .lookGoesOn && unit.looksOn)
        try unit.thaw()
        #expect(!unit.looksOn)
        #expect(unit.outsideChange() == nil, "a thawed tree is not looked at")
    }
}
