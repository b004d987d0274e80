import Glibc
import Testing
@testable import SuperviseSystem

/// The thaw of a large sigstop tree is done in slices, one turn of the loop each
/// (``SliceBudget``, ``ThawWalk``): against a ``FakeKernel``, each turn's signals and reads are
/// counted, the main process is continued first, and whatever acts on the tree before the thaw
/// ends finds it finished.
@Suite(.timeLimit(.minutes(5))) struct SignalStopThawSliceTests {
    let fixture: SignalStopFixture
    var kernel: FakeKernel { fixture.kernel }
    var freezer: SignalStopFreezer { fixture.freezer }
    var unit: SignalStopUnit { fixture.unit }

    init() throws {
        fixture = try SignalStopFixture()
        try fixture.freezeLargeTree()
    }

    /// The processes of the tree still stopped (`T`) in the fake kernel.
    private var stillStopped: [Int32] {
        kernel.processes.filter { $0.key != 50 && $0.value.threads.values.contains { $0.state == "T" } }.map(\.key)
    }

    /// The SIGCONTs sent since `start` signals, in order.
    private func continues(since start: Int) -> [Int32] {
        kernel.signals.dropFirst(start).filter { $0.signal == SIGCONT }.map(\.pid)
    }

    /// Each turn continues or looks at no more than a turn's share, the main process is continued
    /// first, each stopped process gets one SIGCONT, and only the last turn says the thaw is done.
    @Test func aThawOfALargeTreeGoesOnTurnByTurnMainProcessFirst() throws {
        let start = kernel.signals.count
        freezer.endMoment()
        var answers = [try unit.thaw()], mostReads = 0, mostSignals = 0
        while answers.last == .goesOn, answers.count < 100 {
            freezer.endMoment()
            let (reads, signals) = (kernel.procReads, kernel.signals.count)
            answers.append(try unit.continueThaw())
            mostReads = max(mostReads, kernel.procReads - reads)
            mostSignals = max(mostSignals, kernel.signals.count - signals)
        }
        #expect(answers.last == .done && answers.dropLast().allSatisfy { $0 == .goesOn } && answers.count >= 8,
                "\(answers.count) turns: \(answers.suffix(3))")
        #expect(mostSignals <= SliceBudget.stepsPerTurn && mostReads <= SliceBudget.stepsPerTurn,
                "one turn sent \(mostSignals) signals and read \(mostReads) files")
        let continued = continues(since: start)
        #expect(continued.first == 100, "the first SIGCONT went to \(continued.first.map(String.init) ?? "nobody")")
        #expect(continued.count == 1_201 && Set(continued).count == 1_201, "\(continued.count) SIGCONTs")
        #expect(stillStopped.isEmpty, "\(stillStopped.count) processes still stopped")
        #expect(!unit.thawsOn)
        #expect(try unit.continueThaw() == .done)
    }

    /// A signal sent to the tree while its thaw goes on finds every process continued: the thaw
    /// is finished first, whole.
    @Test func aSignalDuringTheThawFinishesItFirst() throws {
        let start = kernel.signals.count
        freezer.endMoment()
        #expect(try unit.thaw() == .goesOn && unit.thawsOn)
        unit.signalTree(SIGTERM)
        let sent = kernel.signals.dropFirst(start)
        let firstTerm = try #require(sent.firstIndex { $0.signal == SIGTERM })
        #expect(sent[..<firstTerm].count { $0.signal == SIGCONT } == 1_201, "the SIGTERM came before every SIGCONT")
        #expect(stillStopped.isEmpty && !unit.thawsOn)
        #expect(try unit.continueThaw() == .done)
    }

    /// A freeze asked for while the thaw goes on (a `background` at once) finishes the thaw
    /// first, then stops the tree again and verifies it.
    @Test func aFreezeDuringTheThawFinishesItFirst() throws {
        let start = kernel.signals.count
        freezer.endMoment()
        #expect(try unit.thaw() == .goesOn)
        try unit.requestFreeze()
        #expect(!unit.thawsOn && stillStopped.isEmpty, "\(stillStopped.count) processes left stopped by the thaw")
        #expect(fixture.checkTurnByTurn() == .frozen)
        let sent = kernel.signals.dropFirst(start)
        let firstStop = try #require(sent.firstIndex { $0.signal == SIGSTOP })
        #expect(sent[..<firstStop].count { $0.signal == SIGCONT } == 1_201, "a SIGSTOP came before every SIGCONT")
        #expect(stillStopped.count == 1_201)
    }
}
