/// A time the supervisor was not running — `kill -STOP`, `docker pause`, `systemctl freeze`, a
/// frozen cgroup holding it — noticed when its loop wakes for a timer much later than it asked.
///
/// The loop can't tell when within its wait it stopped, nor whether the children ran meanwhile,
/// so the child gets the benefit: the gap is all the time since the loop last ran, and every
/// deadline that judges a child moves by it (``LifecycleInput/supervisorGap(_:)``).
public struct SupervisorGap: Equatable, Sendable {
    /// When the loop ran again.
    public let at: Instant
    /// How long the loop had not run: from when it began to wait to when it ran again.
    public let length: Duration
    /// How late its timer fired: the supervisor was not running for at least this long.
    public let late: Duration

    /// A timer that fires later than this means the supervisor was not running; anything less is
    /// the ordinary latency of a busy machine.
    public static let threshold: Duration = .milliseconds(250)

    public init(at: Instant, length: Duration, late: Duration) {
        self.at = at
        self.length = length
        self.late = late
    }

    /// The gap, if the loop that began to wait at `waitBegan` for `deadline` woke at `woke` more
    /// than ``threshold`` after both. A wake before the deadline (for another reason) is no gap,
    /// nor is a wait without a deadline; a deadline already past when the wait began is late only
    /// from then (before, the loop was busy, and running).
    public static func detect(waitBegan: Instant, deadline: Instant?, woke: Instant) -> SupervisorGap? {
        guard let deadline else { return nil }
        let late = woke - max(deadline, waitBegan)
        guard late > threshold else { return nil }
        return SupervisorGap(at: woke, length: woke - waitBegan, late: late)
    }
}
