import Testing
@testable import SuperviseCore

/// The report's records stay bounded however long the run: the first and the last entries
/// are kept, and what lies between is counted.
@Suite(.timeLimit(.minutes(5))) struct RecordBoundsTests {
    @Test func headTailBufferKeepsTheFirstAndTheLastAndCountsTheRest() {
        var buffer = HeadTailBuffer<Int>(headLimit: 3, tailLimit: 4)
        for number in 1...5 { buffer.append(number) }
        #expect(buffer.elements == [1, 2, 3, 4, 5] && buffer.omitted == 0)
        for number in 6...20 { buffer.append(number) }
        #expect(buffer.elements == [1, 2, 3, 17, 18, 19, 20])
        #expect(buffer.omitted == 13)
    }

    @Test func headTailBufferWithoutATailKeepsTheFirstOnly() {
        var buffer = HeadTailBuffer<Int>(headLimit: 2, tailLimit: 0)
        for number in 1...5 { buffer.append(number) }
        #expect(buffer.elements == [1, 2] && buffer.omitted == 3 && !buffer.keepsNext)
    }

    @Test func timelineKeepsTheFirstAndLastLifecycleEntriesInOrderWithTheFirstMessages() {
        var timeline = Timeline(origin: .zero)
        let limit = Timeline.lifecycleLimit
        for number in 0..<(3 * limit) {
            timeline.append(.state, "s\(number)", at: Instant(nanoseconds: Int64(number) * 1000))
            timeline.append(.event, "e\(number)", at: Instant(nanoseconds: Int64(number) * 1000))
        }
        let entries = timeline.entries
        let states = entries.filter { $0.kind == .state }.map(\.text)
        #expect(states == (0..<limit).map { "s\($0)" } + ((2 * limit)..<(3 * limit)).map { "s\($0)" })
        #expect(timeline.lifecycleEntriesDropped == limit)
        let events = entries.filter { $0.kind == .event }.map(\.text)
        #expect(events == (0..<Timeline.messageLimit).map { "e\($0)" })
        #expect(timeline.messagesDropped == 3 * limit - Timeline.messageLimit)
        #expect(entries.map(\.milliseconds) == entries.map(\.milliseconds).sorted(), "kept in the order recorded")
        #expect(entries.prefix(2).map(\.text) == ["s0", "e0"])
    }

    @Test func windowOverrunsThatOnlySuspendAreKeptAtBothEndsAndCounted() {
        var h = LifecycleHarness.active { $0.onWindowOverrun = .suspend }
        let cycles = 2 * ChildLifecycle.violationLimit + 7
        for _ in 0..<cycles {
            h.handle(.background)
            h.advance(by: 10)
            h.handle(.freezeVerified)
            h.handle(.foreground)
        }
        #expect(h.machine.violations.count == 2 * ChildLifecycle.violationLimit)
        #expect(h.machine.violationRecords.omitted == 7)
        #expect(h.machine.violations.first?.at == Instant(nanoseconds: 5_000_000_000), "the first is kept")
        #expect(h.machine.violations.last?.at == h.now - .seconds(5), "the last is kept")
    }
}
