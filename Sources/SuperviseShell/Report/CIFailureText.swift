import SuperviseLifecycle
import SuperviseSystem

/// The wording of a ``ChildVerdict/Failure`` in the CI results (JUnit, GitHub annotations).
extension ChildVerdict.Failure {
    /// The JUnit failure `type`: `violation`, `exit`, `task` or `wait`.
    var type: String {
        switch self {
        case .violation: "violation"
        case .exit: "exit"
        case .task: "task"
        case .wait: "wait"
        case .notRecorded(_, let violations, _): violations > 0 ? "violation" : "exit"
        }
    }

    /// One line; instants in seconds since the supervisor started (`origin`).
    func message(origin: Instant) -> String {
        switch self {
        case .violation(let violation):
            let at = JUnitReport.seconds(violation.at - origin)
            let action = violation.action == .killed ? "the child was killed" : "the child was suspended"
            switch violation.kind {
            case .expiry:
                let tasks = violation.tasks.map { task in
                    "task \(task.id.rawValue)" + (task.name.map { " (\($0))" } ?? "")
                }
                return "expiry violation at \(at) s: still open at the limit: \(tasks.joined(separator: ", ")); \(action)"
            case .window:
                return "window violation at \(at) s: neither done nor a task open when the window ended; \(action)"
            case .launch:
                return "launch violation at \(at) s: no hello within the launch timeout (--aware); \(action)"
            }
        case .exit(let exit):
            switch exit.by {
            case .terminate: return exit.termination.summary + " while terminating"
            case .kill: return exit.termination.summary + " at the end of its grace"
            case .self, .violation, .reclaim: return exit.termination.summary
            }
        case .task(let task):
            let at = JUnitReport.seconds((task.endedAt ?? task.startedAt) - origin)
            return "scheduled task \(task.id.rawValue) (\(task.kind.rawValue)) completed with failure at \(at) s"
        case .wait(let reason):
            return reason
        case .notRecorded(let runs, let violations, let failedExits):
            let what = [violations > 0 ? "\(violations) violation\(violations == 1 ? "" : "s")" : nil,
                        failedExits > 0 ? "\(failedExits) failed exit\(failedExits == 1 ? "" : "s")" : nil]
            return what.compactMap { $0 }.joined(separator: " and ")
                + " in the \(runs) runs the report no longer keeps (between the first and the last \(ChildCore.runLimit))"
        }
    }

    /// Whether it is also a GitHub annotation: violations, failed tasks and failed waits are.
    var isAnnotated: Bool {
        switch self {
        case .violation, .wait, .task: true
        case .exit: false
        case .notRecorded(_, let violations, _): violations > 0
        }
    }
}
