import Testing
@testable import SuperviseLifecycle

/// The lifecycle's records stay bounded however long the run: the first and the last entries
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
