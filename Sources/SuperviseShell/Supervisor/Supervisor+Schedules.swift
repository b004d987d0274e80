import SuperviseLifecycle
import SuperviseProtocol

extension Supervisor {
    /// Tells every child's core the conditions the source holds, if they changed since it was
    /// last told; a not-running child launched for its task is started.
    func feedConditions(at now: Instant) {
        guard let feed = conditionFeed else { return }
        let held = feed.source.held
        guard held != feed.told else { return }
        feed.told = held
        for child in children {
            child.handle(.conditions(held), at: now)
            if child.takeRunRequest() { start(child, at: now) }
        }
    }

    /// Before the loop waits: the source watches what due tasks wait for, and says when to poll;
    /// what it read as it began to watch is fed at once.
    func watchConditions(at now: Instant) {
        guard let feed = conditionFeed else { return }
        let awaited = children.reduce(into: Set<ScheduleCondition>()) { $0.formUnion($1.status.awaitedConditions) }
        feed.lookAt = feed.source.watch(awaited, at: now)
        feedConditions(at: now)
    }

    /// After the loop waited: a poll the source asked for is made, and what it read is fed.
    func lookAtConditions(at now: Instant) {
        guard let feed = conditionFeed, let at = feed.lookAt, at <= now else { return }
        feed.lookAt = nil
        feed.source.look(at: now)
        feedConditions(at: now)
    }

    /// `schedules`: one JSON line per scheduled task of each child, running first, then pending
    /// by due time.
    func schedulesAnswer(at now: Instant) -> String {
        var lines = ""
        for child in children {
            for task in scheduledTasksJSON(child, at: now) {
                task.write(into: &lines)
                lines += "\n"
            }
        }
        return lines
    }

    private func scheduledTasksJSON(_ child: SupervisedChild, at now: Instant) -> [JSONValue] {
        let name = JSONValue.string(child.name)
        var lines: [JSONValue] = []
        if let task = child.lifecycle.runningTask {
            let left = task.startedAt + task.limit
            lines.append(.object([
                ("child", name), ("id", .string(task.id.rawValue)), ("kind", .string(task.kind.rawValue)),
                ("state", .string("running")), ("left_ms", .int(max(left - now, .zero).wholeMilliseconds)),
            ]))
        }
        let pending = child.core.work.pending.values.sorted { ($0.dueAt, $0.id.rawValue) < ($1.dueAt, $1.id.rawValue) }
        for task in pending {
            lines.append(.object([
                ("child", name), ("id", .string(task.id.rawValue)), ("kind", .string(task.kind.rawValue)),
                ("state", .string("pending")), ("due_in_ms", .int(max(task.dueAt - now, .zero).wholeMilliseconds)),
                ("requires", .array(task.requires.sorted().map { .string($0.rawValue) })),
                ("every_ms", task.every.map { .int($0.wholeMilliseconds) } ?? .null),
            ]))
        }
        return lines
    }

    /// A scheduled task run as the report keeps it, its instants in ms from `origin`.
    static func scheduledTaskJSON(_ task: ScheduledTaskRecord, origin: Instant) -> JSONValue {
        func ms(_ instant: Instant?) -> JSONValue { .double(instant?.milliseconds(since: origin)) }
        return .object([
            ("id", .string(task.id.rawValue)), ("kind", .string(task.kind.rawValue)),
            ("requested_ms", ms(task.requestedAt)), ("started_ms", ms(task.startedAt)),
            ("limit_ms", .int(task.limit.wholeMilliseconds)), ("expired_ms", ms(task.expiredAt)),
            ("ended_ms", ms(task.endedAt)), ("outcome", .string(task.outcome?.rawValue)),
        ])
    }
}
