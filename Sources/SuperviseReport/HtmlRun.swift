import SuperviseShell
/// Why a JSON document can't be drawn: it is not a supervise report. One line.
public struct HtmlReportError: Error, Equatable, Sendable {
    public var message: String
}

/// What the picture draws, read from a report's JSON (docs/report.md). Strict only about what
/// makes it a report (an object with a `children` array of objects); a key missing or of another
/// type reads as absent, so a report of any version 2 shape draws.
struct HtmlRun {
    struct Entry {
        var milliseconds: Double
        var kind: String
        var text: String

        /// A protocol message (event, request or error), as opposed to a lifecycle entry.
        var isMessage: Bool { kind == "event" || kind == "request" || kind == "error" }
        /// `332.4 ms request: end t1`, as hover text shows it.
        var line: String { "\(HtmlFormat.duration(milliseconds)) \(kind): \(text)" }
    }

    struct Task {
        var id: String
        var name: String?
        var begin: Double
        var end: Double?
        var expire: Double?
        var refused: Bool
        /// `t1 upload`, or the ID alone.
        var label: String { name.map { "\(id) \($0)" } ?? id }
    }

    /// A child's scheduled task runs (`scheduled_tasks`) as task bars from their start, named
    /// `scheduled KIND: OUTCOME`.
    static func scheduledTasks(_ json: JSONValue) -> [Task] {
        json["scheduled_tasks"]?.elements.compactMap { task in
            guard let started = task["started_ms"]?.number else { return nil }
            let name = "scheduled \(task["kind"]?.text ?? "?"): \(task["outcome"]?.text ?? "running")"
            return Task(id: task["id"]?.text ?? "?", name: name, begin: started, end: task["ended_ms"]?.number,
                        expire: task["expired_ms"]?.number, refused: false)
        } ?? []
    }

    struct Violation {
        var kind: String
        var at: Double
        var action: String
        var taskIDs: [String]
    }

    struct Exit {
        var status: Int?
        var by: String
        var at: Double?
        var description: String
        /// Killed by the supervisor: for a violation, at the end of a grace, or to reclaim its memory.
        var wasKilled: Bool { by == "violation" || by == "kill" || by == "reclaim" }
    }

    struct Child {
        var name: String
        var command: [String]
        var pid: Int?
        var freezer: String
        var state: String
        var timeline: [Entry]
        var tasks: [Task]
        var violations: [Violation]
        /// One per run, oldest first; `nil` for a run that had not exited.
        var exits: [Exit?]
        var messagesDropped: Int
        var lifecycleEntriesDropped: Int
        var tasksNotRecorded: Int
        var violationsNotRecorded: Int
        var runsNotRecorded: Int
        var windowMS: Double?
        var limitMS: Double?
        var expiryWarningMS: Double?
    }

    var exitStatus: Int?
    var freezerAsked: String?
    var children: [Child]

    init(report: JSONValue) throws(HtmlReportError) {
        guard case .object = report else { throw HtmlReportError(message: "not a supervise report: the JSON is not an object") }
        guard case .array(let children) = report["children"] ?? .null else {
            throw HtmlReportError(message: "not a supervise report: it has no \"children\" array")
        }
        exitStatus = report["exit_status"]?.integer
        if let status = report["exit_status"], status != .null, !(0...255).contains(exitStatus ?? -1) {
            throw HtmlReportError(message: "not a supervise report: its \"exit_status\" is not a status from 0 to 255")
        }
        freezerAsked = report["settings"]?["freezer"]?.text
        self.children = try children.enumerated().map { (index, child) throws(HtmlReportError) in
            guard case .object = child else {
                throw HtmlReportError(message: "not a supervise report: children[\(index)] is not an object")
            }
            return Self.child(child, index: index)
        }
    }

    private static func child(_ json: JSONValue, index: Int) -> Child {
        func count(_ key: String) -> Int { json[key]?.integer ?? 0 }
        let exits = json["runs"]?.elements.map { exit($0["exit"]) } ?? [exit(json["exit"])]
        return Child(
            name: json["name"]?.text ?? "child \(index + 1)",
            command: json["command"]?.elements.compactMap(\.text) ?? [],
            pid: json["pid"]?.integer,
            freezer: json["freezer"]?.text ?? "?",
            state: json["state"]?.text ?? "?",
            timeline: json["timeline"]?.elements.compactMap { entry in
                guard let at = entry["t_ms"]?.number, let kind = entry["kind"]?.text else { return nil }
                return Entry(milliseconds: at, kind: kind, text: entry["text"]?.text ?? "")
            } ?? [],
            tasks: ((json["tasks"]?.elements.compactMap { task in
                guard let begin = task["begin_ms"]?.number else { return nil }
                return Task(id: task["id"]?.text ?? "?", name: task["name"]?.text, begin: begin,
                            end: task["end_ms"]?.number, expire: task["expire_ms"]?.number,
                            refused: task["refused"] == .bool(true))
            } ?? []) + scheduledTasks(json)).sorted { $0.begin < $1.begin },
            violations: json["violations"]?.elements.compactMap { violation in
                guard let at = violation["at_ms"]?.number else { return nil }
                return Violation(kind: violation["kind"]?.text ?? "?", at: at, action: violation["action"]?.text ?? "?",
                                 taskIDs: violation["tasks"]?.elements.compactMap { $0["id"]?.text } ?? [])
            } ?? [],
            exits: exits,
            messagesDropped: count("messages_dropped"),
            lifecycleEntriesDropped: count("lifecycle_entries_dropped"),
            tasksNotRecorded: count("tasks_not_recorded"),
            violationsNotRecorded: count("violations_not_recorded"),
            runsNotRecorded: count("runs_not_recorded"),
            windowMS: json["settings"]?["window_ms"]?.number,
            limitMS: json["settings"]?["limit_ms"]?.number,
            expiryWarningMS: json["settings"]?["expiry_warning_ms"]?.number)
    }

    private static func exit(_ json: JSONValue?) -> Exit? {
        guard let json, case .object = json else { return nil }
        return Exit(status: json["status"]?.integer, by: json["by"]?.text ?? "?",
                    at: json["at_ms"]?.number, description: json["description"]?.text ?? "")
    }

    /// The latest instant the report mentions: where the picture ends.
    var end: Double {
        var latest = 0.0
        for child in children {
            latest = max(latest, child.timeline.map(\.milliseconds).max() ?? 0)
            for task in child.tasks { latest = max(latest, task.begin, task.end ?? 0, task.expire ?? 0) }
            for violation in child.violations { latest = max(latest, violation.at) }
            for exit in child.exits { latest = max(latest, exit?.at ?? 0) }
        }
        return latest
    }
}
