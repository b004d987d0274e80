import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Writes the picture to `--html` and the JSON report to `--report`, if asked: each whole or
    /// not at all (``ResultFile``). The report says `exitStatus`, or `failedStatus` once the
    /// picture could not be written. Returns whether both were written.
    func writeReport(exitStatus: Int32, failedStatus: Int32) -> Bool {
        guard options.report != nil || options.html != nil else { return true }
        var text = reportText(exitStatus: exitStatus)
        var written = true
        // Drawn from the text as written (its numbers rounded as the file has them), so that
        // `supervise report` draws the very same page from the file.
        if let html = options.html, let page = try? HtmlReport.page(for: JSONReader.parse(Array(text.utf8))),
           !write(page, to: html, what: "the HTML report") {
            written = false
            if options.report != nil { text = reportText(exitStatus: failedStatus) }
        }
        if let report = options.report, !write(text, to: report, what: "the report") { written = false }
        return written
    }

    /// Writes one result file; logs why it could not be.
    func write(_ text: String, to file: ResultFile, what: String) -> Bool {
        guard case .failure(let error) = file.write(text) else { return true }
        logger.error("supervise failed: cannot write \(what) to \(file.path): \(error.message)")
        return false
    }

    private func reportText(exitStatus: Int32) -> String {
        var text = ""
        reportJSON(exitStatus: exitStatus).write(into: &text)
        return text + "\n"
    }

    func reportJSON(exitStatus: Int32) -> JSONValue {
        let first = specs.first ?? ChildSpec(name: "", command: [])
        return .object([
            ("version", .int(2)),
            ("settings", settingsJSON(first.settings, freezer: first.freezer)),
            ("supervisor", supervisorJSON(SupervisorPrivileges.current())),
            ("exit_status", .int(Int64(exitStatus))),
            ("supervisor_gaps", supervisorGapsJSON()),
            ("supervisor_gaps_not_recorded", .int(Int64(supervisorGaps.omitted))),
            ("children", .array(children.map(childReport))),
        ])
    }

    /// Who the supervisor ran as and what it could grant (`supervise doctor` says the same).
    private func supervisorJSON(_ privileges: SupervisorPrivileges) -> JSONValue {
        .object([
            ("uid", .int(Int64(privileges.uid))),
            ("user", .string(privileges.userName)),
            ("capabilities", .array(privileges.effective.names.map(JSONValue.string))),
            ("may_switch_users", .bool(privileges.missingForUserSwitch.isEmpty)),
            ("freezer_notes", .array(freezerNotes.map(JSONValue.string))),
        ])
    }

    /// What a confined child ran with, or null for one with the supervisor's own privileges.
    private func privilegesJSON(_ privileges: ChildPrivileges) -> JSONValue {
        guard privileges.isConfined else { return .null }
        let identity = privileges.identity
        return .object([
            ("uid", identity.map { .int(Int64($0.uid)) } ?? .null),
            ("gid", identity.map { .int(Int64($0.gid)) } ?? .null),
            ("groups", identity.map { .array($0.groups.map { .int(Int64($0)) }) } ?? .null),
            ("capabilities", .array(privileges.grantedCapabilities.names.map(JSONValue.string))),
            ("no_new_privileges", .bool(!privileges.allowsNewPrivileges)),
        ])
    }

    /// One child's timing rules in milliseconds (the top-level `settings` are the first child's).
    private func settingsJSON(_ settings: LifecycleSettings, freezer: FreezerChoice) -> JSONValue {
        .object([
            ("window_ms", .int(settings.window.wholeMilliseconds)),
            ("limit_ms", .int(settings.limit.wholeMilliseconds)),
            ("expiry_warning_ms", .int(settings.expiryWarning.wholeMilliseconds)),
            ("grace_ms", .int(settings.grace.wholeMilliseconds)),
            ("freeze_timeout_ms", .int(settings.freezeTimeout.wholeMilliseconds)),
            ("on_window_overrun", .string(settings.onWindowOverrun.rawValue)),
            ("launch", .string(settings.launch.rawValue)),
            ("freezer", .string(freezer.rawValue)),
            ("stop_signal", .int(Int64(settings.stopSignal))),
            ("max_tasks", .int(Int64(settings.maxOpenTasks))),
            ("aware", .bool(settings.aware)),
            ("launch_timeout_ms", .int(settings.launchTimeout.wholeMilliseconds)),
        ])
    }

    private func childReport(_ child: SupervisedChild) -> JSONValue {
        let lifecycle = child.lifecycle
        let runs = child.runs
        func ms(_ instant: Instant?) -> JSONValue { .double(instant?.milliseconds(since: origin)) }
        func exitJSON(_ exit: ExitRecord?) -> JSONValue {
            guard let exit else { return .null }
            return .object([
                ("status", .int(Int64(exit.termination.shellStatus))),
                ("by", .string(exit.by.rawValue)),
                ("in_time", exit.inTime.map(JSONValue.bool) ?? .null),
                ("at_ms", ms(exit.at)),
                ("description", .string(child.spawnFailure?.message ?? exit.termination.summary)),
            ])
        }
        return .object([
            ("name", .string(child.name)),
            ("command", .array(child.spec.command.map(JSONValue.string))),
            ("pid", child.pid > 0 ? .int(Int64(child.pid)) : .null),
            ("freezer", .string(child.unit.kind.rawValue)),
            ("cgroup", .string(child.unit.cgroupPath)),
            ("privileges", privilegesJSON(child.spec.privileges)),
            ("settings", settingsJSON(child.spec.settings, freezer: child.spec.freezer)),
            ("aware", .bool(lifecycle.aware)),
            ("state", .string(lifecycle.state.rawValue)),
            ("stopped", .string(lifecycle.stoppedBy.map(SignalName.describe))),
            ("timeline", .array(child.timeline.entries.map { entry in
                .object([("t_ms", .double(entry.milliseconds)), ("kind", .string(entry.kind.rawValue)),
                         ("text", .string(entry.text))])
            })),
            ("messages_dropped", .int(Int64(child.timeline.messagesDropped))),
            ("lifecycle_entries_dropped", .int(Int64(child.timeline.lifecycleEntriesDropped))),
            ("errors_dropped", .int(Int64(child.errorsDropped))),
            ("tasks", .array(runs.flatMap(\.taskHistory).map { task in
                .object([("id", .string(task.id.rawValue)), ("name", .string(task.name)),
                         ("begin_ms", ms(task.begin)), ("end_ms", ms(task.end)),
                         ("expire_ms", ms(task.expire)), ("refused", .bool(task.refused))])
            })),
            ("tasks_not_recorded", .int(Int64(runs.map(\.tasksNotRecorded).reduce(child.omittedRuns.tasksAsked, +)))),
            ("violations", .array(runs.flatMap(\.violations).map { violation in
                .object([("kind", .string(violation.kind.rawValue)), ("at_ms", ms(violation.at)),
                         ("action", .string(violation.action.rawValue)),
                         ("tasks", .array(violation.tasks.map {
                             .object([("id", .string($0.id.rawValue)), ("name", .string($0.name))])
                         }))])
            })),
            ("violations_not_recorded",
             .int(Int64(runs.map(\.violationRecords.omitted).reduce(child.omittedRuns.violations, +)))),
            ("snapshots", .array(child.snapshots.elements.map { snapshot in
                .object([("t_ms", .double(snapshot.milliseconds)), ("rss_kb", .int(Int64(snapshot.usage.rssKB))),
                         ("cpu_ms", .double(snapshot.usage.cpuMS))])
            })),
            ("snapshots_not_recorded", .int(Int64(child.snapshots.omitted))),
            ("exit", exitJSON(lifecycle.exit)),
            ("runs", .array(runs.map { .object([("exit", exitJSON($0.exit))]) })),
            ("runs_not_recorded", .int(Int64(child.omittedRuns.count))),
        ])
    }
}
