extension ChildLifecycle {
    /// The first wait before a freeze is checked again; each later wait doubles, up to
    /// ``longestFreezeRecheck``.
    static let firstFreezeRecheck: Duration = .microseconds(100)
    static let longestFreezeRecheck: Duration = .milliseconds(50)
    /// The kernel's least spacing between two `cgroup.events` notifications (~10 ms, with margin).
    static let notificationRateLimit: Duration = .milliseconds(13)

    /// Verified frozen: suspended. A freeze verified by the look at (or, for a supervisor that
    /// ran late, after) the freeze timeout counts as well, as the kernel says it is frozen; its
    /// record says how long it really took, and a note says it was verified late.
    mutating func freezeVerified(_ now: Instant) {
        guard state == .suspending else { return }
        freezeDeadline = nil
        freezeRecheckAt = nil
        setState(.suspended)
        let took = freezeRequestedAt.map { now - $0 } ?? .zero
        actions.append(.frozen(took: took))
        if took > settings.freezeTimeout {
            actions.append(.note("verified frozen late, \(took.formatted) after it was asked for, by the look at "
                                 + "the freeze timeout (\(settings.freezeTimeout.formatted)): it counts as frozen"))
        }
        freezeRequestedAt = nil
    }

    /// Not frozen yet: look again on a doubling back-off until the freeze timeout.
    ///
    /// A freezer that notifies (cgroup v2) is re-checked only until its notification rate
    /// limit has passed: the kernel sends at most one `cgroup.events` notification per ~10 ms,
    /// so a freeze right after a thaw is reported late; after that the notification takes over.
    mutating func notFrozenYet(_ now: Instant) {
        guard state == .suspending else { return }
        if let deadline = freezeDeadline, deadline <= now { return freezeTimedOut(now) }
        guard !freezerNotifies || freezeRecheckStep <= Self.notificationRateLimit else { return }
        freezeRecheckAt = now + freezeRecheckStep
        freezeRecheckStep = min(freezeRecheckStep * 2, Self.longestFreezeRecheck)
    }

    /// The check did this turn's share and goes on at the next turn: checked again at once, the
    /// back-off kept, so a large tree's freeze goes on each turn between the loop's other inputs.
    /// A check still unfinished at the freeze timeout is a freeze not verified in time.
    mutating func freezeUnfinished(_ now: Instant) {
        guard state == .suspending else { return }
        if let deadline = freezeDeadline, deadline <= now { return freezeTimedOut(now) }
        freezeRecheckAt = now
    }

    /// The look at a suspended child for a change from outside did this turn's share (a large
    /// sigstop tree): it goes on at once, at the next turn, between the loop's other inputs.
    mutating func lookUnfinished(_ now: Instant) {
        guard state == .suspended else { return }
        lookAgainAt = now
    }

    /// The freezer's notification fired: check a freeze under way, look at a suspended child
    /// for a thaw from outside, or at an exited child's leftovers.
    mutating func freezerNotified() {
        switch state {
        case .suspending: actions.append(.checkFrozen)
        case .suspended: actions.append(.lookForOutsideChange)
        case .exited where leftoverGraceEnd != nil: actions.append(.checkTreeEmpty)
        case .launching, .active, .background, .terminating, .exited, .notRunning: break
        }
    }

    /// A re-check is due, or the freeze timeout: ask the freezer again.
    mutating func freezeRecheckDue() {
        freezeRecheckAt = nil
        actions.append(.checkFrozen)
    }

    mutating func freezeTimedOut(_ now: Instant) {
        freezeDeadline = nil
        freezeRecheckAt = nil
        freezeRequestedAt = nil
        actions.append(.thaw)
        actions.append(.freezeFailed(
            "freeze-failed: not verified frozen within \(settings.freezeTimeout.formatted); thawed"))
        setState(.background)
    }
}
