import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

/// The pure part of the sigstop freezer's tree tracking: closures of parent links and orphans.
@Suite(.timeLimit(.minutes(5))) struct ChildTreesTests {
    static let supervisor: Int32 = 100

    static func process(_ pid: Int32, start: UInt64 = 1) -> ProcessIdentity {
        ProcessIdentity(pid: pid, startTicks: start)
    }

    /// init (1) ─ supervisor (100) ─┬─ main (200) ─ shell (201) ─ worker (202)
    ///                              ├─ other (300) ─ helper (301)
    ///                              └─ orphan (400) ─ its child (401)
    /// plus an unrelated daemon (500) under init.
    static let table = ProcessTable([
        (process(100), parent: 1), (process(200), parent: 100), (process(201), parent: 200), (process(202), parent: 201),
        (process(300), parent: 100), (process(301), parent: 300),
        (process(400), parent: 100), (process(401), parent: 400),
        (process(500), parent: 1),
    ])

    func known(_ name: String, main: Int32, members: [ProcessIdentity] = []) -> ChildTrees.Known {
        ChildTrees.Known(name: name, main: Self.process(main), members: Set(members))
    }

    @Test func treesFollowParentLinksTransitivelyAndSkipTheDead() {
        #expect(Self.table.trees(from: [Self.process(200)]) == [Self.process(200), Self.process(201), Self.process(202)])
        #expect(Self.table.trees(from: [Self.process(201), Self.process(999)]) == [Self.process(201), Self.process(202)])
        #expect(Self.table.trees(from: []).isEmpty)
    }

    @Test func aReusedPidIsAnotherProcess() {
        #expect(!Self.table.contains(Self.process(202, start: 7)))
        #expect(Self.table.trees(from: [Self.process(200, start: 7)]).isEmpty, "a main whose pid was reused has no tree")
    }

    @Test func aRememberedMemberStaysOneWhenOrphaned() {
        // 400 was found below main before its parent exited; now the supervisor is its parent.
        let trees = ChildTrees.sort([known("api", main: 200, members: [Self.process(400)])], in: Self.table,
                                    adoption: nil, nameOf: { _ in nil })
        #expect(trees == [Set([200, 201, 202, 400, 401].map { Self.process($0) })])
    }

    @Test func withOneChildEveryUnseenOrphanOfTheSupervisorIsItsOwn() {
        let trees = ChildTrees.sort([known("api", main: 200)], in: Self.table,
                                    adoption: OrphanAdoption(adopter: Self.supervisor, soleChild: true), nameOf: { _ in nil })
        #expect(trees.first?.contains(Self.process(401)) == true)
        #expect(trees.first?.contains(Self.process(301)) == true, "with one child, every orphan is the child's")
        #expect(trees.first?.contains(Self.process(500)) == false, "a process outside the supervisor is nobody's")
    }

    @Test func withSeveralChildrenAnUnseenOrphanGoesByItsSuperviseName() {
        let names: [Int32: String] = [300: "queue", 400: "api"]
        let trees = ChildTrees.sort([known("api", main: 200), known("cache", main: 600)], in: Self.table,
                                    adoption: OrphanAdoption(adopter: Self.supervisor, soleChild: false),
                                    nameOf: { names[$0] })
        #expect(trees[0] == Set([200, 201, 202, 400, 401].map { Self.process($0) }))
        #expect(trees[1].isEmpty, "cache's main is gone and nothing names it")
        #expect(!trees.joined().contains(Self.process(300)), "a process naming no child of this freezer is nobody's")
    }

    @Test func withoutAdoptionUnseenOrphansAreNobodys() {
        let trees = ChildTrees.sort([known("api", main: 200)], in: Self.table, adoption: nil, nameOf: { _ in "api" })
        #expect(trees == [Set([200, 201, 202].map { Self.process($0) })])
    }
}
