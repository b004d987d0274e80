import SuperviseLifecycle
import SuperviseProtocol

extension ConfigReader {
    /// The keys of one `[child.NAME.schedule.ID]` table.
    static let scheduleKeys = ["every", "kind", "requires"]

    /// How many schedules one child's table may hold.
    static let scheduleLimit = 16

    /// A child's `schedule` table: one table per task ID, each with `every` (a duration longer
    /// than 0), `kind` (`refresh` unless given) and `requires` (an array of conditions).
    func schedules(_ entry: TOMLTable.Entry, key: String) throws(UsageError) -> [ConfiguredSchedule] {
        guard case .table(let table) = entry.value else {
            throw error(entry.line, "\(key): expected [child.NAME.schedule.ID] tables, found \(entry.value.typeName)")
        }
        guard table.entries.count <= Self.scheduleLimit else {
            throw error(table.line, "\(key): \(table.entries.count) schedules: at most \(Self.scheduleLimit)")
        }
        var schedules: [ConfiguredSchedule] = []
        for entry in table.entries {
            let name = "\(key).\(ControlText.excerpt(entry.key))"
            guard let id = TaskID(entry.key) else {
                throw error(entry.line, "\(name): not a task ID: use 1 to 64 of letters, digits, '.', '_' and '-'")
            }
            guard case .table(let fields) = entry.value else {
                throw error(entry.line, "\(name): expected a table with every, kind and requires, found \(entry.value.typeName)")
            }
            schedules.append(try schedule(id, fields, name: name))
        }
        return schedules
    }

    private func schedule(_ id: TaskID, _ table: TOMLTable, name: String) throws(UsageError) -> ConfiguredSchedule {
        var every: Duration?
        var kind = ScheduledTaskKind.refresh
        var requires: Set<ScheduleCondition> = []
        for entry in table.entries {
            func fail(_ problem: String) -> UsageError { error(entry.line, "\(name) \(ControlText.excerpt(entry.key)): \(problem)") }
            switch entry.key {
            case "every": every = try duration(entry.value, fail)
            case "kind": kind = try choice(entry.value, ScheduledTaskKind.self, fail)
            case "requires":
                guard case .array(let elements) = entry.value else {
                    throw fail("expected an array like [\"idle\", \"power\"], found \(entry.value.typeName)")
                }
                for element in elements { requires.insert(try choice(element, ScheduleCondition.self, fail)) }
            default:
                let hint = ControlText.closest(to: entry.key, in: Self.scheduleKeys).map { " (did you mean '\($0)'?)" } ?? ""
                throw fail("unknown key\(hint): expected one of \(Self.scheduleKeys.joined(separator: ", "))")
            }
        }
        guard let every, every > .zero else {
            throw error(table.line, "\(name): every: missing or 0: give how often it runs, e.g. every = \"15m\"")
        }
        return ConfiguredSchedule(id: id, kind: kind, every: every, requires: requires)
    }
}
