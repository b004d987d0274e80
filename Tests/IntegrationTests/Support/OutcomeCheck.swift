import Foundation

/// Checks the end of a monitored run: its exit status and report against what the monitor saw and
/// what the driver did.
struct OutcomeCheck {
    let status: Int32
    let report: [String: Any]?
    let stderr: [String]
    let monitor: TruthMonitor
    /// The driver SIGKILLed the child's main process.
    let mainKilled: Bool

    /// Where the status, the report and the log disagree with what happened; empty when they agree.
    func problems() -> [String] {
        guard let report else { return ["no report was written"] }
        let child = (report["children"] as? [[String: Any]])?.first ?? [:]
        let exit = child["exit"] as? [String: Any] ?? [:]
        let violations = child["violations"] as? [[String: Any]] ?? []
        var problems: [String] = []
        if report["exit_status"] as? Int != Int(status) {
            problems.append("the report's exit_status \(report["exit_status"] ?? "nil") is not the exit status \(status)")
        }
        if child["state"] as? String != "exited" { problems.append("the report's child is \(child["state"] ?? "nil"), not exited") }
        if let main = monitor.main, child["pid"] as? Int != Int(main.pid) {
            problems.append("the report's pid \(child["pid"] ?? "nil") is not the pid status showed (\(main.pid))")
        }

        let failedLines = failedWaitLines()
        let unexplained = failedLines.subtracting(monitor.failedWaits).subtracting(monitor.unansweredWaits)
        let unlogged = monitor.failedWaits.subtracting(failedLines)
        if !unexplained.isEmpty { problems.append("the log says the waits on stdin lines \(unexplained.sorted()) failed, status showed them met") }
        if !unlogged.isEmpty { problems.append("status showed the waits on stdin lines \(unlogged.sorted()) unmet, the log has no error for them") }

        let killedForViolation = violations.contains { $0["action"] as? String == "killed" }
        let expected: Int32 = killedForViolation ? 124 : !failedLines.isEmpty ? 123 : mainKilled ? 137 : 0
        if status != expected {
            problems.append("exit status \(status), expected \(expected) (violation kill: \(killedForViolation), "
                            + "failed waits: \(failedLines.sorted()), main process killed: \(mainKilled)); exit: \(exit)")
        }
        if mainKilled && !killedForViolation && exit["status"] as? Int != 137 {
            problems.append("the main process was SIGKILLed, yet the report's exit is \(exit)")
        }

        let timeline = (child["timeline"] as? [[String: Any]] ?? [])
            .filter { $0["kind"] as? String == "state" }.compactMap { $0["text"] as? String }
        let shown = monitor.observedStates.filter { $0 != "launching" }
        if !Self.isSubsequence(shown, of: timeline) {
            problems.append("status showed the states \(shown), which the report's timeline \(timeline) does not contain in order")
        }
        return problems
    }

    /// The stdin lines of `wait` commands the log says failed (`stdin line N: 'wait …': timed out` or `can't become`).
    private func failedWaitLines() -> Set<Int> {
        Set(stderr.compactMap { line -> Int? in
            guard let range = line.range(of: "stdin line "), line.contains(": 'wait ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        })
    }

    /// Whether `states` (repeats allowed) appear in `timeline` in order.
    static func isSubsequence(_ states: [String], of timeline: [String]) -> Bool {
        var matched: Int?
        for state in states {
            if let matched, timeline[matched] == state { continue }
            let from = (matched ?? -1) + 1
            guard let next = timeline[from...].firstIndex(of: state) else { return false }
            matched = next
        }
        return true
    }
}
