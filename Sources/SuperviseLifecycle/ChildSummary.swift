/// One child's run, over all its restarts, as the end-of-run summary shows it.
///
/// Every figure comes from the runs' records; whether the child failed is ``ChildVerdict``'s rule.
public struct ChildSummary: Equatable, Sendable {
    /// The state the last run is in.
    public var state: ChildState
    /// How the last run that exited ended; `nil` when none did.
    public var lastExit: ExitRecord?
    /// How many runs were started (more than one when it was restarted), kept or not.
    public var runs: Int
    /// Time out of the foreground over all runs (``ChildLifecycle/backgroundTime``).
    public var backgroundTime: Duration
    /// Task assertions asked for, over all runs, including those not recorded.
    public var tasksAsked: Int
    /// Recorded tasks that were sent `expire` (refused ones not counted).
    public var tasksExpired: Int
    /// The violations recorded, oldest first.
    public var violations: [Violation]
    /// Violations of the runs no longer kept (``OmittedRuns``), not in ``violations``.
    public var violationsNotRecorded = 0
    /// Verified freezes, over all runs.
    public var freezes: Int
    /// The verdict's rule: no violation, no non-zero counted status, no failed wait.
    public var passed: Bool
}

extension ChildSummary {
    /// Sums `runs` (oldest first) and the runs no longer kept (`omitted`) under their `verdict`.
    public init(runs: [ChildLifecycle], omitted: OmittedRuns = OmittedRuns(), verdict: ChildVerdict) {
        state = runs.last?.state ?? .launching
        lastExit = runs.last { $0.exit != nil }?.exit
        self.runs = runs.count + omitted.count
        backgroundTime = runs.reduce(omitted.backgroundTime) { $0 + $1.backgroundTime }
        tasksAsked = runs.reduce(omitted.tasksAsked) { $0 + $1.taskHistory.count + $1.tasksNotRecorded }
        tasksExpired = runs.reduce(omitted.tasksExpired) { $0 + $1.taskHistory.count { $0.expire != nil && !$0.refused } }
        violations = runs.flatMap(\.violations)
        violationsNotRecorded = omitted.violations
        freezes = runs.reduce(omitted.freezes) { $0 + $1.freezes }
        passed = verdict.passed
    }
}
