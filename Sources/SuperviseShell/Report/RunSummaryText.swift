import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

/// The human summary printed at the end of a run: one line per child, then the exit status and
/// the rule of the precedence that gave it. Pure: values in, text out.
///
///     supervise: summary of 2 children
///       api: killed for an expiry violation; 2 runs; 31.2s in the background; tasks: 3, 1 expired; violations: expiry (upload)
///       worker: exited with 0; 1.5s in the background; 2 freezes (cgroup2)
///     supervise: exit status 124: a child was killed for a violation (api)
///
/// At most ``maxLines`` lines: when the children don't fit, the failed ones come first, and the
/// ones left out are counted in one line by how they ended.
public struct RunSummaryText: Sendable {
    /// One child as the summary shows it.
    public struct Child: Sendable {
        public var name: String
        /// The freezer backend that froze it (`cgroup2`, ...).
        public var freezer: String
        public var summary: ChildSummary
        /// Why its last run could not be started, when it could not (replaces the exit wording).
        public var spawnFailure: String?

        public init(name: String, freezer: String, summary: ChildSummary, spawnFailure: String? = nil) {
            self.name = name
            self.freezer = freezer
            self.summary = summary
            self.spawnFailure = spawnFailure
        }
    }

    /// A terminal's height, less a line for the prompt.
    public static let screenLines = 23
    /// How many names (tasks, children, endings) one list shows before counting the rest.
    static let namesShown = 3
    /// How many violations one child's line lists before counting the rest.
    static let violationsShown = 2

    public var children: [Child]
    public var exitStatus: Int32
    public var rule: RunOutcome.Rule
    var maxLines = RunSummaryText.screenLines

    public init(children: [Child], exitStatus: Int32, rule: RunOutcome.Rule) {
        self.children = children
        self.exitStatus = exitStatus
        self.rule = rule
    }

    /// The whole summary, each line ending in a newline, control characters escaped.
    public var text: String {
        let noun = children.count == 1 ? "child" : "children"
        var lines = ["supervise: summary of \(children.count) \(noun)"]
        let room = max(maxLines - 2, 1)
        if children.count <= room {
            lines += children.map { "  " + Self.line($0) }
        } else {
            let ordered = children.filter { !$0.summary.passed } + children.filter(\.summary.passed)
            lines += ordered.prefix(room - 1).map { "  " + Self.line($0) }
            lines.append("  " + Self.rest(ordered.dropFirst(room - 1)))
        }
        lines.append("supervise: exit status \(exitStatus): \(reason)")
        return lines.map { ControlEscapes.escaped($0) + "\n" }.joined()
    }

    /// `worker: exited with 0; 2 runs; 1.5s in the background; ...`: the parts that are not zero.
    static func line(_ child: Child) -> String {
        let summary = child.summary
        var parts = [child.spawnFailure ?? ended(summary)]
        if summary.runs > 1 { parts.append("\(summary.runs) runs") }
        if summary.backgroundTime > .zero { parts.append("\(summary.backgroundTime.formatted) in the background") }
        if summary.tasksAsked > 0 {
            parts.append("tasks: \(summary.tasksAsked)" + (summary.tasksExpired > 0 ? ", \(summary.tasksExpired) expired" : ""))
        }
        if !summary.violations.isEmpty || summary.violationsNotRecorded > 0 {
            parts.append("violations: " + violations(summary.violations, notRecorded: summary.violationsNotRecorded))
        }
        if summary.freezes > 0 {
            parts.append("\(summary.freezes) freeze\(summary.freezes == 1 ? "" : "s") (\(child.freezer))")
        }
        return child.name + ": " + parts.joined(separator: "; ")
    }

    /// How the last run ended: `exited with 0`, `killed for an expiry violation`, ...
    static func ended(_ summary: ChildSummary) -> String {
        guard let exit = summary.lastExit else { return "still \(summary.state.rawValue)" }
        switch exit.by {
        case .self: return exit.termination.summary
        case .terminate: return exit.termination.summary + " when terminated"
        case .kill: return exit.termination.summary + " after it was terminated"
        case .reclaim: return "reclaimed while suspended (\(exit.termination.summary)); not running"
        case .violation:
            let kind = summary.violations.last { $0.action == .killed }?.kind ?? .expiry
            return "killed for \(kind == .expiry ? "an" : "a") \(kind.rawValue) violation"
        }
    }

    /// `expiry (upload, sync), window, +3 more`; the `notRecorded` ones (of runs no longer kept)
    /// are among the more.
    static func violations(_ violations: [Violation], notRecorded: Int = 0) -> String {
        var shown = violations.prefix(violationsShown).map { violation in
            guard !violation.tasks.isEmpty else { return violation.kind.rawValue }
            return "\(violation.kind.rawValue) (\(list(violation.tasks.map { $0.name ?? $0.id.rawValue })))"
        }
        let more = max(violations.count - violationsShown, 0) + notRecorded
        if more > 0 { shown.append("+\(more) more") }
        return shown.joined(separator: ", ")
    }

    /// `… and 940 more children exited with 0`, or by how they ended, most common first.
    static func rest(_ children: ArraySlice<Child>) -> String {
        var counts: [(ended: String, count: Int)] = []
        for child in children {
            let ended = child.spawnFailure == nil ? ended(child.summary) : "could not be started"
            if let index = counts.firstIndex(where: { $0.ended == ended }) {
                counts[index].count += 1
            } else {
                counts.append((ended, 1))
            }
        }
        let noun = children.count == 1 ? "child" : "children"
        if counts.count == 1 { return "… and \(children.count) more \(noun) \(counts[0].ended)" }
        let groups = counts.sorted { $0.count > $1.count }.map { "\($0.count) \($0.ended)" }
        return "… and \(children.count) more \(noun): " + list(groups)
    }

    /// The first ``namesShown`` of `items`, then how many more: `a, b, c, +4 more`.
    static func list(_ items: [String]) -> String {
        var shown = Array(items.prefix(namesShown))
        if items.count > namesShown { shown.append("+\(items.count - namesShown) more") }
        return shown.joined(separator: ", ")
    }

    /// Which rule of the exit-status precedence applied, in words.
    var reason: String {
        switch rule {
        case .supervisorFailed:
            return "supervise itself failed"
        case .violationKill:
            let killed = children.filter { $0.summary.violations.contains { $0.action == .killed } }.map(\.name)
            return "a child was killed for a violation" + (killed.isEmpty ? "" : " (\(Self.list(killed)))")
        case .scriptStepFailed:
            return "a stdin command failed (a wait, or a command that could not be run)"
        case .childStatus(let status, let child):
            return "the first child to exit non-zero, \(child), exited with \(status)"
        case .taskFailed(let child, let task):
            return "\(child)'s scheduled task \(task) completed with failure"
        case .allZero:
            return "every child ended with status 0 (or was terminated in time)"
        }
    }
}
