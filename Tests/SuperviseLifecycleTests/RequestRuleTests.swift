import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// The request errors decided by a child's state, and awareness.
@Suite(.timeLimit(.minutes(5))) struct RequestRuleTests {
    @Test func helloBeforeTheFirstWindowEndsMakesTheChildAware() {
        var h = LifecycleHarness.background(aware: false)
        h.advance(by: 1)
        h.request(.hello)
        #expect(h.machine.aware)
    }

    @Test func helloAfterTheFirstWindowLeavesTheChildUnaware() {
        var h = LifecycleHarness.background(aware: false)
        h.advance(to: 5)
        h.handle(.foreground)
        h.take()
        #expect(h.request(.hello) == [.note("hello after the first window ended: the child stays unaware")])
        #expect(!h.machine.aware)
        h.handle(.background)
        h.advance(to: 20)
        #expect(h.machine.violations.isEmpty, "an unaware child is never judged for its window")
    }

    @Test func aWindowCutShortBySuspensionStillSettlesAwareness() {
        var h = LifecycleHarness.background(aware: false)
        h.request(.done(seq: 1))
        h.handle(.freezeVerified)
        h.handle(.foreground)
        h.request(.hello)
        #expect(!h.machine.aware, "the first window ended when the child was suspended")
    }

    @Test func aSecondHelloIsABadVersion() {
        var h = LifecycleHarness.active()
        #expect(h.request(.hello) == [.send(.error(RequestError(code: .badVersion, request: "hello 1")))])
        #expect(h.machine.aware)
    }

    @Test func beginWithAnOpenIDIsADuplicate() {
        var h = LifecycleHarness.active()
        h.request(.begin(id: id("t"), name: "a"))
        #expect(h.request(.begin(id: id("t"), name: "b")) ==
                [.send(.error(RequestError(code: .duplicateID, request: "begin t b")))])
        #expect(Array(h.machine.openTasks) == [TaskReference(id: id("t"), name: "a")])
    }

    @Test func endOfAnUnknownIDIsAnError() {
        var h = LifecycleHarness.active()
        #expect(h.request(.end(id: id("nope"))) == [.send(.error(RequestError(code: .unknownID, request: "end nope")))])
        h.request(.begin(id: id("t"), name: nil))
        h.request(.end(id: id("t")))
        #expect(h.request(.end(id: id("t"))).count == 1, "a second end of the same task is unknown")
    }

    @Test func tooManyTasksIsRefusedWithExpire() {
        var h = LifecycleHarness.active { $0.maxOpenTasks = 2 }
        h.request(.begin(id: id("a"), name: nil))
        h.request(.begin(id: id("b"), name: nil))
        #expect(h.request(.begin(id: id("c"), name: nil)) ==
                [.send(.error(RequestError(code: .tooManyTasks, request: "begin c"))), .send(.expire(id("c")))])
        #expect(h.machine.openTasks.count == 2)
        #expect(h.request(.end(id: id("c"))) == [], "the end after a refusal is accepted silently")
    }

    @Test func malformedRequestsAreAnsweredAndChangeNothing() {
        var h = LifecycleHarness.background()
        let error = RequestError(code: .unknownRequest, request: "fly away")
        #expect(h.handle(.malformed(error)) == [.send(.error(error))])
        #expect(h.state == .background)
        #expect(h.machine.nextDeadline == Instant(nanoseconds: 5_000_000_000))
    }

    @Test func taskHistoryRecordsBeginEndAndExpire() {
        var h = LifecycleHarness.background()
        h.advance(to: 1)
        h.request(.begin(id: id("t"), name: "upload"))
        h.advance(to: 26)
        h.request(.end(id: id("t")))
        let record = h.machine.taskHistory[0]
        #expect(record.begin == Instant(nanoseconds: 1_000_000_000))
        #expect(record.expire == Instant(nanoseconds: 25_000_000_000))
        #expect(record.end == Instant(nanoseconds: 26_000_000_000))
        #expect(!record.refused)
    }

    @Test func taskHistoryIsBounded() {
        var h = LifecycleHarness.active()
        for n in 0..<(ChildLifecycle.taskHistoryLimit + 3) {
            let task = id("t\(n)")
            h.request(.begin(id: task, name: nil))
            h.request(.end(id: task))
        }
        #expect(h.machine.taskHistory.count == ChildLifecycle.taskHistoryLimit)
        #expect(h.machine.tasksNotRecorded == 3)
        #expect(h.machine.openTasks.isEmpty)
    }
}
