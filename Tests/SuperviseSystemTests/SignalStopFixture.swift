@testable import SuperviseSystem
import Testing

/// A sigstop freezer on a ``FakeKernel`` with one unit, `worker`, whose main process 100 is a
/// child of the subreaper 50: what the slice tests start from.
struct SignalStopFixture {
    let kernel = FakeKernel()
    let freezer: SignalStopFreezer
    let unit: SignalStopUnit

    init() throws {
        freezer = SignalStopFreezer(adoption: OrphanAdoption(adopter: 50, soleChild: true), system: kernel)
        kernel.addProcess(50)
        kernel.addProcess(100, parent: 50)
        unit = try #require(try freezer.makeUnit(for: "worker") as? SignalStopUnit)
        unit.attach(pid: 100)
    }

    /// Adds `count` children below `parent`, numbered from `first`.
    func fork(_ count: Int32, from first: Int32, below parent: Int32) {
        for pid in first..<(first + count) { kernel.addProcess(pid, parent: parent) }
    }

    /// Freezes a tree of 1,201 processes below 100 (20 children of 59 each), turn by turn.
    func freezeLargeTree() throws {
        fork(20, from: 1_000, below: 100)
        for child: Int32 in 1_000..<1_020 { fork(59, from: child * 100, below: child) }
        try unit.requestFreeze()
        try #require(checkTurnByTurn() == .frozen)
    }

    /// Checks the unit's freeze once a turn until it is verified, at most 1,000 turns: the last verdict.
    func checkTurnByTurn() -> FreezeCheck {
        var verdict = FreezeCheck.notFrozen, turns = 0
        while verdict != .frozen, turns < 1_000 {
            turns += 1
            freezer.endMoment()
            verdict = unit.checkFreeze()
        }
        return verdict
    }
}
