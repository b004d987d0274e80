import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// `Instant` arithmetic saturates at the ends of the clock: the longest duration a user may give
/// (`Int64.max` nanoseconds) makes a deadline of "never", not a trap.
@Suite struct InstantSaturationTests {
    let longest = Duration.nanoseconds(Int64.max)

    @Test func sumsStopAtTheEndsOfTheClock() {
        #expect(Instant(nanoseconds: 5) + longest == Instant(nanoseconds: .max))
        #expect(Instant(nanoseconds: .max) + .nanoseconds(1) == Instant(nanoseconds: .max))
        #expect(Instant(nanoseconds: -5) - longest == Instant(nanoseconds: .min))
        #expect(Instant(nanoseconds: 5) - .nanoseconds(Int64.min) == Instant(nanoseconds: .max))
        #expect(Instant(nanoseconds: 5) + .nanoseconds(-7) == Instant(nanoseconds: -2), "in range: exact")
    }

    @Test func differencesStopAtTheLongestDuration() {
        #expect(Instant(nanoseconds: .max) - Instant(nanoseconds: -1) == longest)
        #expect(Instant(nanoseconds: .min) - Instant(nanoseconds: 1) == .nanoseconds(Int64.min))
        #expect(Instant(nanoseconds: .max).milliseconds(since: Instant(nanoseconds: .min)) == Double(Int64.max) / 1e6)
    }

    /// Every timer at the longest duration, on a clock already near its end.
    @Test func theCoreRunsAtTheLongestDurations() {
        var settings = LifecycleSettings()
        (settings.window, settings.limit, settings.grace, settings.freezeTimeout) = (longest, longest, longest, longest)
        settings.expiryWarning = longest - .nanoseconds(1)
        var core = ChildCore(settings: settings, restart: RestartRules(policy: .always, delay: longest, delayMax: longest),
                             freezerNotifies: false)
        var now = Instant(nanoseconds: .max - 1_000)
        for input: LifecycleInput in [.launched, .request(.hello), .background, .request(.begin(id: TaskID("t")!, name: nil)),
                                      .exited(.exited(1), treeEmpty: true), .runOver] {
            let decision = core.handle(input, at: now)
            now = now + .nanoseconds(100)
            if let deadline = decision.status.nextDeadline { #expect(deadline >= now - .nanoseconds(100)) }
        }
        #expect(core.status.restartPending, "a restart ~292 years away is still scheduled")
        #expect(core.status.nextDeadline == Instant(nanoseconds: .max))
    }
}
