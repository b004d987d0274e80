/// Whether one child passed, over all its runs, as a CI report (JUnit, annotations) shows it.
///
/// The rule follows the exit-status precedence (``RunOutcome``): a child fails for each
/// violation, for each run whose counted status (``ExitRecord/countedStatus``) is not 0, for
/// each scheduled task that completed with `failure` (one held past its time is a violation),
/// and for each failed `wait` that concerns it. A run killed for a violation fails for that
/// violation only: its SIGKILL status is what the violation did, not a second failure.
public struct ChildVerdict: Equatable, Sendable {
    /// One reason the child failed.
    public enum Failure: Equatable, Sendable {
        /// A timing rule was broken.
        case violation(Violation)
        /// A run ended with a non-zero counted status on its own account.
        case exit(ExitRecord)
        /// A scheduled task completed with `failure`.
        case task(ScheduledTaskRecord)
        /// A `wait` on stdin failed while waiting for this child: why, in one line.
        case wait(String)
        /// Runs the record no longer keeps (``OmittedRuns``) had violations or failed exits.
        case notRecorded(runs: Int, violations: Int, failedExits: Int)
    }

    /// Every failure, violations and exits in the order of the runs, then the failed waits.
    public let failures: [Failure]
    /// How long the child's runs ran, together: from each launch to its exit (or to the end).
    public let timeRun: Duration

    /// Judges `runs` (oldest first), the runs no longer kept (`omitted`, between them), and the
    /// reasons of the failed waits that concern the child; a run still going counts up to `end`.
    public init(runs: [ChildLifecycle], omitted: OmittedRuns = OmittedRuns(), failedWaits: [String], end: Instant) {
        var failures: [Failure] = []
        var timeRun = Duration.zero
        for run in runs {
            failures += run.violations.map(Failure.violation)
            failures += run.scheduledTasks.filter { $0.outcome == .failure }.map(Failure.task)
            if let exit = run.exit, exit.countedStatus != 0, exit.by != .violation {
                failures.append(.exit(exit))
            }
            if let launched = run.launchedAt {
                let stop = run.exit?.at ?? end
                if stop > launched { timeRun += stop - launched }
            }
        }
        if omitted.violations > 0 || omitted.failedExits > 0 {
            failures.append(.notRecorded(runs: omitted.count, violations: omitted.violations,
                                         failedExits: omitted.failedExits))
        }
        self.failures = failures + failedWaits.map(Failure.wait)
        self.timeRun = timeRun + omitted.timeRun
    }

    /// No failure.
    public var passed: Bool { failures.isEmpty }
}
