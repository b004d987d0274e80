import Glibc
import Testing
@testable import SuperviseSystem

/// The freeze of a large or forking tree is done in slices, one turn of the loop each
/// (``SliceBudget``), so the loop answers `status` and `ctl` between them: against a
/// ``FakeKernel``, each check's reads are counted, and a verdict is checked against the states.
@Suite(.timeLimit(.minutes(5))) struct SignalStopSliceTests {
    let fixture: SignalStopFixture
    var kernel: FakeKernel { fixture.kernel }
    var freezer: SignalStopFreezer { fixture.freezer }
    var unit: SignalStopUnit { fixture.unit }

    /// The most files one step reads: a look's stat and schedstat (and wchan, parked in `D`), an
    /// adoption's stat and environ, a listing's one children file.
    static let readsPerStep = 3

    init() throws {
        fixture = try SignalStopFixture()
    }

    /// The pids below 100, by parent links in the fake kernel.
    private func tree() -> [Int32] {
        let children = Dictionary(grouping: kernel.processes.keys) { kernel.processes[$0]?.parent ?? 0 }
        var found: [Int32] = [], pending: [Int32] = [100]
        while let pid = pending.popLast() {
            found.append(pid)
            pending += children[pid] ?? []
        }
        return found
    }

    private func isStopped(_ pid: Int32) -> Bool {
        kernel.processes[pid]?.threads.values.allSatisfy { $0.state == "T" } ?? true
    }

    /// 256 steps a turn, and each check's share an equal part for each freeze under way when the
    /// turn began, 8 at least.
    @Test func theBudgetAllows256StepsATurnSharedByTheFreezes() {
        var budget = SliceBudget()
        var taken = 0
        for _ in 0..<1_000 where budget.take() { taken += 1 }
        #expect(taken == SliceBudget.stepsPerTurn)
        let spent = !budget.take()
        budget.renew(freezes: 0)
        let renewed = budget.take()
        #expect(spent && renewed)
        let shares = [0, 1, 2, 3, 100].map { freezes in
            budget.renew(freezes: freezes)
            return budget.share
        }
        #expect(shares == [256, 256, 128, 85, 8])
    }

    /// Two children's trees of 801 processes frozen at once: each check takes at most half the
    /// turn's budget, so the child checked second gets steps at every turn, not only once the
    /// first one's freeze is verified.
    @Test func twoLargeFreezesBothGoOnAtEveryTurn() throws {
        kernel.addProcess(200, parent: 50)
        let second = try #require(try freezer.makeUnit(for: "second") as? SignalStopUnit)
        second.attach(pid: 200)
        fixture.fork(800, from: 1_000, below: 100)
        fixture.fork(800, from: 2_000, below: 200)
        try unit.requestFreeze()
        try second.requestFreeze()
        var verdicts: (FreezeCheck, FreezeCheck) = (.notFrozen, .notFrozen), starved = 0, turns = 0
        while verdicts != (.frozen, .frozen), turns < 500 {
            turns += 1
            freezer.endMoment()
            verdicts.0 = unit.checkFreeze()
            let before = kernel.procReads
            verdicts.1 = second.checkFreeze()
            if verdicts.0 != .frozen, verdicts.1 != .frozen, kernel.procReads == before { starved += 1 }
        }
        #expect(verdicts == (.frozen, .frozen), "after \(turns) turns")
        #expect(starved <= 2, "the second child got nothing in \(starved) of \(turns) turns")
    }

    /// A tree of 1,201 processes, frozen one turn at a time: no check reads more than a turn's
    /// budget allows (the whole tree was read in one check before), the checks in between say
    /// they go on, and the tree is frozen in the end with every process stopped.
    @Test func eachCheckOfALargeTreeReadsOnlyATurnsShare() throws {
        fixture.fork(20, from: 1_000, below: 100)
        for parent: Int32 in 1_000..<1_020 { fixture.fork(59, from: parent * 100, below: parent) }
        try unit.requestFreeze()
        var answers: [FreezeCheck] = [], mostReads = 0
        while answers.last != .frozen, answers.count < 1_000 {
            freezer.endMoment()
            let before = kernel.procReads
            answers.append(unit.checkFreeze())
            mostReads = max(mostReads, kernel.procReads - before)
        }
        #expect(answers.last == .frozen, "never frozen: \(answers.suffix(3))")
        #expect(mostReads <= SliceBudget.stepsPerTurn * Self.readsPerStep, "one check read \(mostReads) files")
        #expect(answers.filter { $0 == .unfinished }.count > 10, "the freeze was not sliced: \(answers.count) checks")
        #expect(tree().count == 1_201 && tree().allSatisfy(isStopped))
    }

    /// The snapshot taken once the freeze of a tree of 801 is verified reads no file: each
    /// member's CPU time and memory come from the stat its look in the verifying round read.
    /// Before a freeze, each member is read.
    @Test func theSnapshotOfAVerifiedFreezeReadsNothingAgain() throws {
        fixture.fork(20, from: 1_000, below: 100)
        for parent: Int32 in 1_000..<1_020 { fixture.fork(39, from: parent * 100, below: parent) }
        let whole = ResourceUsage(rssKB: 801 * 250 * ProcFS.pageSize / 1024,
                                  cpuMS: Double(801 * (7 + 3)) * 1000 / Double(ProcFS.ticksPerSecond))
        freezer.rescan()
        var before = kernel.procReads
        #expect(unit.resourceUsage() == whole)
        #expect(kernel.procReads - before == 801, "not frozen: each member's stat, and no other file")
        try unit.requestFreeze()
        #expect(fixture.checkTurnByTurn() == .frozen)
        before = kernel.procReads
        #expect(unit.resourceUsage() == whole)
        #expect(kernel.procReads == before, "the snapshot read \(kernel.procReads - before) files")
    }

    /// A tree of 301 known members needs two turns to be sent its stops: only the request's
    /// own check skips its look; the check after the round that a later slice ended begins the
    /// next round at once.
    @Test func onlyTheRequestsOwnCheckWaitsForTheStops() throws {
        fixture.fork(300, from: 1_000, below: 100)
        freezer.rescan()
        try unit.requestFreeze()
        #expect(unit.checkFreeze() == .unfinished, "more stops than a turn's share")
        freezer.endMoment()
        #expect(unit.checkFreeze() == .notFrozen, "the stops sent, no look yet")
        #expect(tree().allSatisfy(isStopped))
        freezer.endMoment()
        let before = kernel.procReads
        #expect(unit.checkFreeze() == .unfinished, "a look at 301 processes and a walk is more than a turn's share")
        #expect(kernel.procReads > before, "the check after the stops looked at nothing")
    }

    /// A tree that keeps forking between the slices: ten processes not stopped yet fork a child
    /// each at each turn, for 30 turns. Frozen only once every one of them is stopped too, and no
    /// check in between says frozen while one runs.
    @Test func aTreeForkingBetweenSlicesIsFrozenOnlyOnceEveryChildIsStopped() throws {
        fixture.fork(150, from: 1_000, below: 100)
        var next: Int32 = 5_000
        try unit.requestFreeze()
        var turns = 0, verdict = FreezeCheck.notFrozen
        while verdict != .frozen, turns < 2_000 {
            turns += 1
            if turns <= 30 {
                for pid in tree().filter({ !isStopped($0) }).sorted().prefix(10) {
                    kernel.addProcess(next, parent: pid)
                    next += 1
                }
            }
            freezer.endMoment()
            verdict = unit.checkFreeze()
            let running = tree().filter { !isStopped($0) }
            #expect(verdict != .frozen || running.isEmpty, "frozen at turn \(turns) while \(running.prefix(5)) ran")
        }
        #expect(verdict == .frozen)
        #expect(next > 5_020, "the tree did not fork during the slices: \(next - 5_000) forks")
        #expect(Set(unit.members.map(\.pid)) == Set(tree()), "members the walk missed or kept")
    }
}
