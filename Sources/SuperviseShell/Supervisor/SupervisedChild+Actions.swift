import SuperviseLifecycle
import SuperviseSystem
import SuperviseProtocol

extension SupervisedChild {
    /// Carries out the lifecycle's actions in order. Consecutive sends go out in one write.
    func perform(_ actions: [LifecycleAction], at now: Instant) {
        var batch: [Event] = []
        for action in actions {
            if case .send(let event) = action {
                batch.append(event)
                recordSent(event, at: now)
                continue
            }
            if !batch.isEmpty {
                writer?.send(batch)
                batch.removeAll()
            }
            perform(action, at: now)
        }
        if !batch.isEmpty { writer?.send(batch) }
    }

    /// Carries out a turn's share of a thaw: a thaw that goes on is told to the core, which asks
    /// for the next share at the next turn; a failure is logged and noted.
    private func thawStep(at now: Instant, _ step: () throws(SupervisorError) -> ThawProgress) {
        do {
            if try step() == .goesOn { handle(.thawUnfinished, at: now) }
        } catch {
            logger.error("\(error.message)")
            record(.note, error.message, at: now)
        }
    }

    private func recordSent(_ event: Event, at now: Instant) {
        guard timeline.keepsMessages else { return record(.event, "", at: now) }
        let kind: TimelineKind = if case .error = event { .error } else { .event }
        var line = event.line
        line.removeLast()
        record(kind, line, at: now)
    }

    private func perform(_ action: LifecycleAction, at now: Instant) {
        switch action {
        case .send:
            break
        case .freeze:
            startFreeze(at: now)
        case .checkFrozen:
            checkFrozen(at: now)
        case .frozen(let took):
            record(.freeze, "frozen (\(unit.kind.rawValue)) in \(Double(took.nanoseconds / 1000) / 1000) ms", at: now)
            recordSnapshot(at: now)
        case .lookForOutsideChange:
            if let input = outsideChange() { handle(input, at: now) }
        case .checkTreeEmpty:
            checkTreeEmpty(at: now)
        case .thaw:
            thawStep(at: now) { () throws(SupervisorError) in try unit.thaw() }
        case .continueThaw:
            thawStep(at: now) { () throws(SupervisorError) in try unit.continueThaw() }
        case .signalTree(let signal):
            unit.signalTree(signal)
            unit.signalTree(SignalNumber.continueStopped)
        case .continueTree:
            unit.signalTree(SignalNumber.continueStopped)
            record(.note, "sent SIGCONT to its processes: its main process was stopped by a signal", at: now)
        case .killTree:
            unit.killAll()
        case .stateChanged(let state):
            record(.state, state.rawValue, at: now)
            logger.info("\(state == .exited || state == .notRunning ? exitSummary(state) : state.rawValue)")
        case .violation(let violation):
            let tasks = violation.tasks.map { task in task.name.map { "\(task.id) (\($0))" } ?? task.id.rawValue }
            let text = "\(violation.kind.rawValue) violation: \(violation.action.rawValue)"
                + (tasks.isEmpty ? "" : "; open tasks: " + tasks.joined(separator: ", "))
            record(.violation, text, at: now)
            logger.warning("\(text)")
        case .freezeFailed(let text):
            record(.freeze, text, at: now)
            logger.warning("\(text)")
        case .refuse:
            break
        case .note(let text):
            record(.note, text, at: now)
            logger.info("\(text)")
        case .stoppedBySignal(let signal):
            let text = "its main process was stopped by \(SignalName.describe(signal)): it can't run until continued"
            record(.note, text, at: now)
            logger.notice("\(text)")
        case .leftProcessesBehind(let signal):
            let text = "the child left processes behind: sending them \(SignalName.describe(signal))"
            record(.note, text, at: now)
            logger.info("\(text)")
        case .restartScheduled(let delay, let run):
            record(.note, "restarting in \(delay.formatted) (run \(run))", at: now)
            logger.notice("restarting in \(delay.formatted)")
        case .restartCancelled:
            record(.note, "restart cancelled", at: now)
        case .startRun:
            prepareNextRun()
        }
    }

    /// How the run that just exited ended, "exited with 0" or "killed by SIGKILL (9)", and
    /// "reclaimed: …; not-running" for a reclaim: the one log line of an exit. A restart's fresh
    /// run has no exit yet, so the last run with one.
    private func exitSummary(_ state: ChildState) -> String {
        guard let summary = runs.last(where: { $0.exit != nil })?.exit?.termination.summary else { return state.rawValue }
        return state == .notRunning ? "reclaimed: \(summary); not-running" : summary
    }

    private func startFreeze(at now: Instant) {
        do {
            try unit.requestFreeze()
        } catch {
            logger.error("\(error.message)")
            record(.freeze, error.message, at: now)
            return
        }
        checkFrozen(at: now)
    }
}
