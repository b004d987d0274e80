/// The waits between the restarts of one child.
///
/// The first restart waits ``RestartRules/delay``; each quick consecutive restart waits
/// twice as long as the one before, up to ``RestartRules/delayMax``. A run of at least
/// ``stableRun`` counts as a success and starts the sequence again.
public struct RestartBackoff: Equatable, Sendable {
    /// How long a child must run for its next restart to wait `delay` again.
    public static let stableRun: Duration = .seconds(10)

    /// The wait before the first restart of a sequence.
    public let initial: Duration
    /// The longest wait.
    public let maximum: Duration
    private var next: Duration

    /// The back-off for `rules`' restart delays.
    public init(_ rules: RestartRules) {
        initial = rules.delay
        maximum = rules.delayMax
        next = rules.delay
    }

    /// The wait before starting the child again, after a run that lasted `runTime`.
    public mutating func delay(afterRunOf runTime: Duration) -> Duration {
        if runTime >= Self.stableRun { next = initial }
        let delay = min(next, maximum)
        next = min(next * 2, maximum)
        return delay
    }
}
