import Testing
@testable import SuperviseLifecycle

/// When the core asks the freezer again whether a freeze is done: a doubling back-off until the
/// freeze timeout, and for a freezer that notifies only until its notification rate limit.
@Suite(.timeLimit(.minutes(5))) struct FreezeRecheckTests {
    /// A child asked to freeze: `done` with no task open.
    private func freezing(notifies: Bool) -> LifecycleHarness {
        var h = LifecycleHarness(freezerNotifies: notifies) { $0.window = .seconds(5) }
        h.handle(.launched)
        h.request(.hello)
        h.handle(.background)
        h.request(.done(seq: 1))
        #expect(h.take().contains(.freeze))
        return h
    }

    /// Answers every check with `.notFrozenYet` until `seconds`; returns the checks' offsets
    /// from the freeze request, in microseconds.
    private func checks(_ h: inout LifecycleHarness, until seconds: Double) -> [Int64] {
        let start = h.now
        var offsets: [Int64] = []
        h.handle(.notFrozenYet)  // the check made with the freeze request
        while let deadline = h.machine.nextDeadline, deadline <= start + .seconds(seconds), h.state == .suspending {
            h.now = deadline
            let actions = h.handle(.tick)
            guard actions == [.checkFrozen] else { break }
            offsets.append((h.now - start).nanoseconds / 1000)
            h.handle(.notFrozenYet)
        }
        return offsets
    }

    @Test func aFreezerThatDoesNotNotifyIsCheckedOnADoublingBackOffUpTo50ms() {
        var h = freezing(notifies: false)
        let offsets = checks(&h, until: 0.5)
        #expect(offsets.prefix(4) == [100, 300, 700, 1500], "100 µs, then twice as long each time")
        let gaps = zip(offsets.dropFirst(), offsets).map { $0 - $1 }
        #expect(gaps.max() == 50_000, "never more than 50 ms apart")
        #expect(offsets.last! > 450_000, "still checked near the end: \(offsets.last!) µs")
    }

    @Test func aFreezerThatNotifiesIsCheckedOnlyUntilItsNotificationRateLimit() {
        var h = freezing(notifies: true)
        let requested = h.now
        let offsets = checks(&h, until: 0.9)
        #expect(offsets == [100, 300, 700, 1500, 3100, 6300, 12700, 25500], "up to a 12.8 ms step, then no more")
        #expect(h.machine.nextDeadline == requested + .seconds(1), "only the freeze timeout is left")
        #expect(h.handle(.freezerNotified) == [.checkFrozen], "the notification takes over")
    }

    /// A check that did its turn's share (sigstop, a large tree) is made again at once, at the
    /// next turn, and leaves the back-off where it was; unfinished at the freeze timeout, the
    /// freeze is not verified in time.
    @Test func anUnfinishedCheckGoesOnAtOnceUntilTheFreezeTimeout() {
        var h = freezing(notifies: false)
        let requested = h.now
        h.handle(.notFrozenYet)
        h.now = h.now + .microseconds(100)
        #expect(h.handle(.tick) == [.checkFrozen])
        for _ in 0..<3 {
            h.handle(.freezeUnfinished)
            #expect(h.machine.nextDeadline == h.now, "not checked again at once")
            h.now = h.now + .microseconds(10)
            #expect(h.handle(.tick) == [.checkFrozen])
        }
        h.handle(.notFrozenYet)
        #expect(h.machine.nextDeadline == h.now + .microseconds(200), "the back-off moved on unfinished checks")
        h.now = requested + .seconds(1)
        #expect(h.handle(.tick) == [.checkFrozen])
        #expect(h.handle(.freezeUnfinished) == [.thaw, .freezeFailed("freeze-failed: not verified frozen within 1s; thawed"),
                                                 .stateChanged(.background)])
    }

    @Test func aCheckDueWithTheTimeoutGoesFirstAndCanStillVerify() {
        var h = freezing(notifies: false)
        h.handle(.notFrozenYet)
        // Jump past both the next check and the freeze timeout (1 s).
        h.now = h.now + .seconds(2)
        #expect(h.handle(.tick) == [.checkFrozen])
        #expect(h.handle(.freezeVerified).prefix(2) == [.stateChanged(.suspended), .frozen(took: .seconds(2))])
    }

    /// cgroup v2 stops re-checking after ~13 ms and waits for `cgroup.events`; a supervisor
    /// that did not run until past the timeout must look before it undoes a completed freeze.
    @Test func theFreezeTimeoutLooksAtTheKernelBeforeItJudges() {
        var h = freezing(notifies: true)
        let requested = h.now
        _ = checks(&h, until: 0.9)
        h.now = requested + .milliseconds(1523)
        #expect(h.handle(.tick) == [.checkFrozen], "a look, not a thaw")
        #expect(h.handle(.freezeVerified) == [
            .stateChanged(.suspended), .frozen(took: .milliseconds(1523)),
            .note("verified frozen late, 1.523s after it was asked for, by the look at the freeze timeout (1s): "
                  + "it counts as frozen"),
        ])
        #expect(h.state == .suspended)
    }

    @Test func theLookAtTheFreezeTimeoutThatFindsItNotFrozenThaws() {
        var h = freezing(notifies: true)
        h.now = h.now + .seconds(1)
        #expect(h.handle(.tick) == [.checkFrozen])
        #expect(h.handle(.notFrozenYet) == [.thaw, .freezeFailed("freeze-failed: not verified frozen within 1s; thawed"),
                                            .stateChanged(.background)])
    }

    @Test func aLookLeftUnansweredTimesOutOnTheNextTick() {
        var h = freezing(notifies: true)
        h.now = h.now + .seconds(1)
        #expect(h.handle(.tick) == [.checkFrozen])
        #expect(h.handle(.tick).first == .thaw)
        #expect(h.state == .background)
    }

    @Test func aFreezeVerifiedInTimeHasNoNote() {
        var h = freezing(notifies: false)
        h.now = h.now + .milliseconds(999)
        #expect(h.handle(.freezeVerified) == [.stateChanged(.suspended), .frozen(took: .milliseconds(999))])
    }

    @Test func notFrozenPastTheTimeoutThawsAndReportsTheFailure() {
        var h = freezing(notifies: false)
        h.now = h.now + .seconds(1)
        let actions = h.handle(.notFrozenYet)
        #expect(actions.first == .thaw)
        #expect(actions.contains(.stateChanged(.background)))
        #expect(h.state == .background)
    }

    @Test func theNotificationLooksAtWhatTheStateWaitsFor() {
        var h = freezing(notifies: true)
        #expect(h.handle(.freezerNotified) == [.checkFrozen])
        h.handle(.freezeVerified)
        #expect(h.handle(.freezerNotified) == [.lookForOutsideChange])
        h.handle(.foreground)
        #expect(h.handle(.freezerNotified) == [])
    }

    @Test func aThawDropsThePendingCheck() {
        var h = freezing(notifies: false)
        h.handle(.notFrozenYet)
        #expect(h.machine.nextDeadline! < h.now + .milliseconds(1))
        h.handle(.foreground)
        #expect(h.machine.nextDeadline == nil, "no check, no timeout once thawed")
    }
}
