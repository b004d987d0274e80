import Testing
@testable import SuperviseSystem

/// The rounds of a sigstop freeze check (``FreezeWalk``), answered by hand: no kernel, fake or real.
@Suite struct FreezeWalkTests {
    static func process(_ pid: Int32) -> ProcessIdentity {
        ProcessIdentity(pid: pid, startTicks: 1_000)
    }

    let main = Self.process(100)
    /// What a look at a stopped process read.
    static let stopped = ProcessStat(state: "T", parent: 1, userTicks: 7, systemTicks: 3, reapedChildrenTicks: 0,
                                     startTicks: 1_000, residentPages: 250)

    /// Carries out a round with `tree` (parent pid → children pids) as the kernel, every process
    /// halted; the steps taken.
    @discardableResult
    static func runRound(_ walk: inout FreezeWalk, tree: [Int32: [Int32]], orphans: [Int32] = []) -> [FreezeWalk.Step] {
        var steps: [FreezeWalk.Step] = []
        while let step = walk.nextStep() {
            steps.append(step)
            switch step {
            case .stop: break
            case .look(let process): walk.looked(process, .halted(timesRun: 3, threads: 1, stat: Self.stopped))
            case .listChildren(let process, _): walk.found(children: tree[process.pid] ?? [])
            case .listOrphans: walk.found(children: orphans)
            case .adopt(let pid, _, _): walk.adopted(Self.process(pid))
            }
        }
        return steps
    }

    /// The first round only stops; the next looks, walks, finds the children and stops them, so
    /// it is no verdict; the one after finds nothing new: frozen.
    @Test func aRoundIsFrozenOnlyWhenItsWalkFindsNothingNew() {
        var walk = FreezeWalk(members: [main], adopter: nil)
        #expect(Self.runRound(&walk, tree: [:]) == [.stop(main)])
        #expect(walk.verdict == .notFrozen)
        let tree: [Int32: [Int32]] = [100: [101], 101: [102]]
        walk.beginRound(members: [main])
        let second = Self.runRound(&walk, tree: tree)
        #expect(second.filter { if case .adopt = $0 { true } else { false } }.count == 2)
        #expect(walk.verdict == .notFrozen)
        #expect(walk.stopped == Set([100, 101, 102].map(Self.process)))
        walk.beginRound(members: walk.members)
        let third = Self.runRound(&walk, tree: tree)
        #expect(!third.contains { if case .stop = $0 { true } else { false } })
        #expect(walk.verdict == .frozen)
        #expect(walk.timesRun == Dictionary(uniqueKeysWithValues: [100, 101, 102].map { (Self.process($0), 3) }))
    }

    /// A stopped process still running ends the round at its look, before any walk.
    @Test func aRunningProcessEndsTheRoundBeforeTheWalk() {
        var walk = FreezeWalk(members: [main], adopter: 50)
        Self.runRound(&walk, tree: [:])
        walk.beginRound(members: [main])
        #expect(walk.nextStep() == .look(main))
        walk.looked(main, .running)
        #expect(walk.nextStep() == nil)
        #expect(walk.verdict == .notFrozen)
    }

    /// The supervisor's children are listed last, after the members' own; one not reached yet
    /// is adopted by name, and a process the walk reached is never adopted twice.
    @Test func orphansAreListedLastAndAdoptedByName() {
        var walk = FreezeWalk(members: [main], adopter: 50)
        Self.runRound(&walk, tree: [:])
        walk.beginRound(members: [main])
        let steps = Self.runRound(&walk, tree: [100: [101]], orphans: [100, 101, 300])
        let lastListing = steps.lastIndex { if case .listChildren = $0 { true } else { false } }
        let orphanListing = steps.firstIndex(of: .listOrphans)
        #expect(orphanListing != nil && lastListing.map { $0 > orphanListing! } == true, "300 walked into after")
        #expect(steps.contains(.adopt(pid: 300, parent: 50, byName: true)))
        #expect(steps.filter { if case .adopt(101, _, _) = $0 { true } else { false } }.count == 1)
        #expect(walk.members == Set([100, 101, 300].map(Self.process)))
    }

    /// A process the walk found that is gone by its read, or not this child's, stays out.
    @Test func aProcessNotAdoptedStaysOut() {
        var walk = FreezeWalk(members: [main], adopter: nil)
        Self.runRound(&walk, tree: [:])
        walk.beginRound(members: [main])
        while let step = walk.nextStep() {
            switch step {
            case .look(let process): walk.looked(process, .halted(timesRun: nil, threads: 1, stat: Self.stopped))
            case .listChildren: walk.found(children: [101])
            case .adopt: walk.adopted(nil)
            case .stop, .listOrphans: Issue.record("unexpected \(step)")
            }
        }
        #expect(walk.verdict == .frozen)
        #expect(walk.members == [main])
        #expect(walk.timesRun == nil, "a count the kernel can't tell")
    }
}
