import Foundation

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds have passed on the
/// monotonic clock; returns whether it held. The condition is checked once more at the deadline, so a
/// zero timeout still looks once.
///
/// This is the one way tests wait for an observable condition (a state line, a file, `/proc`) instead
/// of sleeping a fixed time. Assert on the result — `#expect(eventually { … })` — so a condition that
/// never comes fails the test rather than slowing it down. The result can't be dropped unnoticed:
/// a wait whose failure doesn't matter says so with `_ =` and a comment.
public func eventually(timeout: Double = 10, interval: Double = 0.005, _ condition: () -> Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .nanoseconds(Int64(timeout * 1e9)))
    let pause = UInt32(max(interval, 0) * 1e6)
    while clock.now < deadline {
        if condition() { return true }
        usleep(pause)
    }
    return condition()
}
