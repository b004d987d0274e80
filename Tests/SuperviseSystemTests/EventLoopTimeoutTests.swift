import SuperviseLifecycle
import Testing
@testable import SuperviseSystem

/// When the kernel refuses to arm the loop's timer, epoll_wait times the wait itself: its
/// timeout must never wake the loop before the deadline, nor trap on any deadline.
@Suite struct EventLoopTimeoutTests {
    static func at(_ nanoseconds: Int64) -> Instant { Instant(nanoseconds: nanoseconds) }

    @Test func aDeadlineIsWaitedForInWholeMillisecondsRoundedUp() {
        #expect(EventLoop.milliseconds(until: Self.at(5_000_000), from: Self.at(0)) == 5)
        #expect(EventLoop.milliseconds(until: Self.at(5_000_001), from: Self.at(0)) == 6)
        #expect(EventLoop.milliseconds(until: Self.at(1), from: Self.at(0)) == 1)
    }

    @Test func aDeadlinePassedOrNoneDoesNotWaitOrWaitsForever() {
        #expect(EventLoop.milliseconds(until: Self.at(10), from: Self.at(10)) == 0)
        #expect(EventLoop.milliseconds(until: Self.at(0), from: Self.at(10)) == 0)
        #expect(EventLoop.milliseconds(until: nil, from: Self.at(10)) == -1)
    }

    @Test func theFarthestDeadlinesSaturateInsteadOfTrapping() {
        #expect(EventLoop.milliseconds(until: Self.at(.max), from: Self.at(0)) == Int32.max)
        #expect(EventLoop.milliseconds(until: Self.at(.max), from: Self.at(.min)) == Int32.max)
        #expect(EventLoop.milliseconds(until: Self.at(.min), from: Self.at(.max)) == 0)
    }
}
