/// Whether one child passed, over all its runs, as a CI report (JUnit, annotations) shows it.
///
/// The rule follows the exit-status precedence (``RunOutcome``): a child fails for each
/// violation, for each run whose counted status (``ExitRecord/countedStatus``) is not 0, and
/// for each failed `wait` that concerns it. A run killed for a violation fails for that
/// violation only: its SIGKILL status is what the violation did, not a second failure.
public struct ChildVerdict: Equatable, Sendable {
    /// One reason the child failed.
    public enum Failure: Equatable, Sendable {
        /// A timing rule was broken.
        case violation(Violation)
        /// A run ended with a non-zero counted status on its own account.
        case exit(ExitRecord)
        /// A `wait` on stdin failed while waiting for this child: why, in one line.
        case wait(String)
    }

    /// Every failure, violations and exits in the order of the runs, then the failed waits.
    public let failures: [Failure]
    /// How long the child's runs ran, together: from each launch to its exit (or to the end).
    public let timeRun: Duration

    /// Judges `runs` (oldest first) and the reasons of the failed waits that concern the child;
    /// a run still going counts up to `end`.
    public init(runs: [ChildLifecycle], failedWaits: [String], end: Instant) {
        var failures: [Failure] = []
        var timeRun = Duration.zero
        for run in runs {
            failures += run.violations.map(Failure.violation)
            if let exit = run.exit, exit.countedStatus != 0, exit.by != .violation {
                failures.append(.exit(exit))
            }
            if let launched = run.launchedAt {
                let stop = run.exit?.at ?? end
                if stop > launched { timeRun += stop - launched }
            }
        }
        self.failures = failures + failedWaits.map(Failure.wait)
        self.timeRun = timeRun
    }

    /// No failure.
    public var passed: Bool { failures.isEmpty }
}
