/// What decides the supervisor's exit status, gathered over a run.
public struct RunOutcome: Equatable, Sendable {
    /// The rule of the precedence that gave the exit status, for the end-of-run summary.
    public enum Rule: Equatable, Sendable {
        /// The supervisor itself failed (125).
        case supervisorFailed
        /// A child was killed for a violation (the violation status).
        case violationKill
        /// A scripted step failed (123).
        case scriptStepFailed
        /// The first non-zero counted status of a child, in the order they exited, and that child.
        case childStatus(Int32, child: String)
        /// A scheduled task completed with `failure` (1): the first child, in the run's order,
        /// and its first failed task.
        case taskFailed(child: String, task: String)
        /// Every child's counted status was 0.
        case allZero
    }

    /// The supervisor itself failed (125): a freezer or cgroup it needed was not there.
    public var supervisorFailed = false
    /// Some child was killed for an expiry, window or launch violation.
    public var violationKill = false
    /// A scripted step failed (123): a `wait` timed out or waited for a state its child can no
    /// longer reach, or a command read from a pipe or file could not be run as written.
    public var scriptStepFailed = false
    /// Each child's counted status, in the order they exited.
    public private(set) var childStatuses: [CountedStatus] = []
    /// The first child, in the run's order, with a scheduled task that completed with `failure`,
    /// and that task.
    public var failedTask: FailedTask?

    /// A child's scheduled task that completed with `failure`.
    public struct FailedTask: Equatable, Sendable {
        public var child: String
        public var task: String
    }

    /// A child's status as it counts toward the exit status.
    public struct CountedStatus: Equatable, Sendable {
        public var child: String
        public var status: Int32
    }

    public init() {}

    /// Counts `status` as `child`'s, after those counted before it.
    public mutating func count(_ status: Int32, of child: String) {
        childStatuses.append(CountedStatus(child: child, status: status))
    }

    /// The first rule that applies, by the contract's precedence: 125, then the violation
    /// status, then 123, then the first non-zero child status, then 1 for a scheduled task
    /// that completed with `failure`, then 0.
    public var rule: Rule {
        if supervisorFailed { return .supervisorFailed }
        if violationKill { return .violationKill }
        if scriptStepFailed { return .scriptStepFailed }
        if let failed = childStatuses.first(where: { $0.status != 0 }) {
            return .childStatus(failed.status, child: failed.child)
        }
        return failedTask.map { Rule.taskFailed(child: $0.child, task: $0.task) } ?? .allZero
    }

    /// The exit status by ``rule``. (Usage errors, 2, never get here.)
    public func exitStatus(violationStatus: Int32 = 124) -> Int32 {
        switch rule {
        case .supervisorFailed: 125
        case .violationKill: violationStatus
        case .scriptStepFailed: 123
        case .childStatus(let status, _): status
        case .taskFailed: 1
        case .allZero: 0
        }
    }
}
