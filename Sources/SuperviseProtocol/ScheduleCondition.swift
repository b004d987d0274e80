/// A condition a scheduled background task may require before it runs (`requires=` of a
/// `schedule` request, as BackgroundTasks' `requiresExternalPower` and WorkManager's
/// constraints): the supervisor runs a due task only while every condition it names holds.
public enum ScheduleCondition: String, CaseIterable, Comparable, Sendable {
    /// The machine is idle: its CPU pressure is below the idle threshold.
    case idle
    /// The machine is on external power (or has no battery).
    case power
    /// The machine has a network: a default route through a link that is up.
    case network

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
