import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// How long the picture may take to draw in its own process before it is killed.
    static let pictureTimeout = Duration.seconds(120)

    /// Writes the JSON report to `--report` and the picture to `--html`, if asked: each whole or
    /// not at all (``ResultFile``). The report is streamed from the records in bounded memory;
    /// the picture is drawn from it by `supervise report` in a process of its own, so that
    /// drawing never takes this process's memory (it may be a container's pid 1). The report
    /// says `exitStatus`, or `failedStatus` once the picture could not be written. Returns
    /// whether both were written.
    func writeReport(exitStatus: Int32, failedStatus: Int32) -> Bool {
        let produce = { (status: Int32) in { (out: inout ResultStream) in self.writeReportJSON(exitStatus: status, into: &out) } }
        guard let html = options.html else {
            return options.report.map { write(produce(exitStatus), to: $0, what: "the report") } ?? true
        }
        // The picture is drawn from the report as written (its numbers rounded as the file has
        // them), so that `supervise report` draws the very same page from the file.
        let source: Result<Int32, ResultFileError>
        if let report = options.report {
            source = report.writeKeepingOpen(produce(exitStatus))
        } else {
            source = html.writeUnnamed(produce(exitStatus))
        }
        let fd: Int32
        switch source {
        case .success(let opened): fd = opened
        case .failure(let error):
            let what = options.report == nil ? "the HTML report" : "the report"
            logger.error("supervise failed: cannot write \(what) to \((options.report ?? html).path): \(error.message)")
            return false
        }
        let drawn = drawPicture(from: fd, to: html)
        Descriptor.close(fd)
        if !drawn, let report = options.report {
            _ = write(produce(failedStatus), to: report, what: "the report")
        }
        return drawn
    }

    /// Runs `supervise report` on the report open at `fd`, waiting for it at most
    /// ``pictureTimeout``; logs why the page was not written.
    private func drawPicture(from fd: Int32, to html: ResultFile) -> Bool {
        let outcome = HelperProcess.run(["supervise", "report", "/proc/self/fd/0", "--html=" + html.path],
                                        stdin: fd, timeout: Self.pictureTimeout)
        let why: String
        switch outcome {
        case .ended(.exited(0)): return true
        case .ended(.exited(let status)): why = "'supervise report' exited with status \(status)"
        case .ended(.signaled(let signal)): why = "'supervise report' was killed by \(SignalName.describe(signal))"
        case .timedOut: why = "'supervise report' took over \(Self.pictureTimeout) and was killed"
        case .notStarted(let reason): why = "'supervise report' could not be started: \(reason)"
        }
        logger.error("supervise failed: cannot write the HTML report to \(html.path): \(why)")
        return false
    }

    /// Writes one result file; logs why it could not be.
    func write(_ text: String, to file: ResultFile, what: String) -> Bool {
        write({ $0.append(text) }, to: file, what: what)
    }

    /// Writes one result file from what `produce` streams; logs why it could not be.
    func write(_ produce: (inout ResultStream) -> Void, to file: ResultFile, what: String) -> Bool {
        guard case .failure(let error) = file.write(produce) else { return true }
        logger.error("supervise failed: cannot write \(what) to \(file.path): \(error.message)")
        return false
    }

    /// The JSON report (docs/report.md) and a newline, written a child and an entry at a time.
    func writeReportJSON(exitStatus: Int32, into out: inout ResultStream) {
        let first = specs.first ?? ChildSpec(name: "", command: [])
        StreamedJSON.object([
            ("version", .value(.int(2))),
            ("settings", .value(settingsJSON(first.settings, freezer: first.freezer))),
            ("supervisor", .value(supervisorJSON(SupervisorPrivileges.current()))),
            ("exit_status", .value(.int(Int64(exitStatus)))),
            ("supervisor_gaps", .value(supervisorGapsJSON())),
            ("supervisor_gaps_not_recorded", .value(.int(Int64(supervisorGaps.omitted)))),
            ("memory_pressure", .value(memoryPressureJSON())),
            ("children", .array(children) { self.childReport($0) }),
        ]).write(into: &out)
        out.append("\n")
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
            ("refresh_time_ms", .int(settings.refreshTime.wholeMilliseconds)),
            ("processing_time_ms", .int(settings.processingTime.wholeMilliseconds)),
        ])
    }

    /// One child's report: its records' arrays are written an element at a time.
    private func childReport(_ child: SupervisedChild) -> StreamedJSON {
        let lifecycle = child.lifecycle
        let runs = child.runs
        let origin = origin
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
            ("name", .value(.string(child.name))),
            ("command", .value(.array(child.spec.command.map(JSONValue.string)))),
            ("pid", .value(child.pid > 0 ? .int(Int64(child.pid)) : .null)),
            ("freezer", .value(.string(child.unit.kind.rawValue))),
            ("cgroup", .value(.string(child.unit.cgroupPath))),
            ("privileges", .value(privilegesJSON(child.spec.privileges))),
            ("settings", .value(settingsJSON(child.spec.settings, freezer: child.spec.freezer))),
            ("aware", .value(.bool(lifecycle.aware))),
            ("state", .value(.string(lifecycle.state.rawValue))),
            ("stopped", .value(.string(lifecycle.stoppedBy.map(SignalName.describe)))),
            ("timeline", .array(child.timeline.entries) { entry in
                .value(.object([("t_ms", .double(entry.milliseconds)), ("kind", .string(entry.kind.rawValue)),
                                ("text", .string(entry.text))]))
            }),
            ("messages_dropped", .value(.int(Int64(child.timeline.messagesDropped)))),
            ("lifecycle_entries_dropped", .value(.int(Int64(child.timeline.lifecycleEntriesDropped)))),
            ("errors_dropped", .value(.int(Int64(child.errorsDropped)))),
            ("tasks", .array(runs.lazy.flatMap(\.taskHistory)) { task in
                .value(.object([("id", .string(task.id.rawValue)), ("name", .string(task.name)),
                                ("begin_ms", ms(task.begin)), ("end_ms", ms(task.end)),
                                ("expire_ms", ms(task.expire)), ("refused", .bool(task.refused))]))
            }),
            ("scheduled_tasks", .array(runs.lazy.flatMap(\.scheduledTasks)) { .value(Self.scheduledTaskJSON($0, origin: origin)) }),
            ("scheduled_tasks_not_recorded", .value(.int(Int64(runs.map(\.scheduledTasksNotRecorded).reduce(0, +))))),
            ("tasks_not_recorded",
             .value(.int(Int64(runs.map(\.tasksNotRecorded).reduce(child.omittedRuns.tasksAsked, +))))),
            ("violations", .array(runs.lazy.flatMap(\.violations)) { violation in
                .value(.object([("kind", .string(violation.kind.rawValue)), ("at_ms", ms(violation.at)),
                                ("action", .string(violation.action.rawValue)),
                                ("tasks", .array(violation.tasks.map {
                                    .object([("id", .string($0.id.rawValue)), ("name", .string($0.name))])
                                }))]))
            }),
            ("violations_not_recorded",
             .value(.int(Int64(runs.map(\.violationRecords.omitted).reduce(child.omittedRuns.violations, +))))),
            ("snapshots", .array(child.snapshots.elements) { snapshot in
                .value(.object([("t_ms", .double(snapshot.milliseconds)), ("rss_kb", .int(Int64(snapshot.usage.rssKB))),
                                ("cpu_ms", .double(snapshot.usage.cpuMS))]))
            }),
            ("snapshots_not_recorded", .value(.int(Int64(child.snapshots.omitted)))),
            ("exit", .value(exitJSON(lifecycle.exit))),
            ("runs", .value(.array(runs.map { .object([("exit", exitJSON($0.exit))]) }))),
            ("runs_not_recorded", .value(.int(Int64(child.omittedRuns.count)))),
        ])
    }
}
