import Testing
@testable import SuperviseLifecycle
@testable import SuperviseShell

/// The report's timeline stays bounded however long the run: the first and the last entries
/// are kept, and what lies between is counted.
@Suite(.timeLimit(.minutes(5))) struct TimelineBoundsTests {
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
}
