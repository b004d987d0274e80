/// What the runs a child's record no longer keeps (between the first and the last
/// ``ChildCore/runLimit``) added up to: enough for the verdict, the summary, the exit status
/// and the report's counts to take them into account as if they were kept.
public struct OmittedRuns: Equatable, Sendable {
    /// How many runs were let go.
    public private(set) var count = 0
    /// Their time out of the foreground.
    public private(set) var backgroundTime: Duration = .zero
    /// Their time from launch to exit.
    public private(set) var timeRun: Duration = .zero
    /// Their verified freezes.
    public private(set) var freezes = 0
    /// The tasks they asked for, recorded or not.
    public private(set) var tasksAsked = 0
    /// Their recorded tasks that were sent `expire` (refused ones not counted).
    public private(set) var tasksExpired = 0
    /// Their violations, kept in their run's record or not.
    public private(set) var violations = 0
    /// Their exits with a non-zero counted status on their own account (not a violation's kill):
    /// each a failure of the verdict, as for a kept run.
    public private(set) var failedExits = 0
    /// One of them was killed for a violation (the exit status's violation rule).
    public private(set) var killedForViolation = false

    public init() {}

    /// Adds a finished run that is let go.
    mutating func add(_ run: ChildLifecycle) {
        count += 1
        backgroundTime += run.backgroundTime
        if let launched = run.launchedAt, let exit = run.exit, exit.at > launched { timeRun += exit.at - launched }
        freezes += run.freezes
        tasksAsked += run.taskHistory.count + run.tasksNotRecorded
        tasksExpired += run.taskHistory.count { $0.expire != nil && !$0.refused }
        violations += run.violations.count + run.violationRecords.omitted
        if let exit = run.exit {
            if exit.countedStatus != 0, exit.by != .violation { failedExits += 1 }
            if exit.by == .violation { killedForViolation = true }
        }
    }
}
