import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import SuperviseProtocol
#if canImport(Glibc)
import Glibc
#endif

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
        case .thaw:
            freezeRecheckAt = nil
            freezeRequestedAt = nil
            do {
                try unit.thaw()
            } catch {
                logger.error("\(error.message)")
                record(.note, error.message, at: now)
            }
        case .signalTree(let signal):
            unit.signalTree(signal)
            unit.signalTree(SIGCONT)
        case .killTree:
            unit.killAll()
        case .stateChanged(let state):
            record(.state, state.rawValue, at: now)
            logger.info("\(state.rawValue)")
            if state == .suspended { recordFrozen(at: now) }
        case .violation(let violation):
            let tasks = violation.tasks.map { task in task.name.map { "\(task.id) (\($0))" } ?? task.id.rawValue }
            let text = "\(violation.kind.rawValue) violation: \(violation.action.rawValue)"
                + (tasks.isEmpty ? "" : "; open tasks: " + tasks.joined(separator: ", "))
            record(.violation, text, at: now)
            logger.warning("\(text)")
            onViolation(self, violation)
        case .freezeFailed(let text):
            record(.freeze, text, at: now)
            logger.warning("\(text)")
        case .refuse:
            break
        case .note(let text):
            record(.note, text, at: now)
            logger.info("\(text)")
        }
    }

    private func startFreeze(at now: Instant) {
        freezeRequestedAt = now
        do {
            try unit.requestFreeze()
        } catch {
            logger.error("\(error.message)")
            record(.freeze, error.message, at: now)
            return
        }
        freezeRecheckStep = .microseconds(100)
        checkFrozen(at: now)
    }

    /// Asks the freezer whether the child is frozen; if not, looks again on a doubling back-off.
    ///
    /// Backends without notifications (cgroup v1, sigstop) are re-checked until the freeze
    /// timeout. cgroup v2 notifies, but the kernel sends at most one `cgroup.events`
    /// notification per ~10 ms, so a freeze right after a thaw is reported late: it is
    /// re-checked only until that window has passed, then the notification takes over.
    func checkFrozen(at now: Instant) {
        guard state == .suspending else { return }
        if unit.isFrozen() {
            freezeRecheckAt = nil
            // Decided at the moment it was verified: the check itself can take a while (sigstop).
            handle(.freezeVerified, at: MonotonicClock.now())
        } else if unit.notificationFD == nil || freezeRecheckStep <= Self.notificationRateLimit {
            freezeRecheckAt = now + freezeRecheckStep
            freezeRecheckStep = min(freezeRecheckStep * 2, .milliseconds(50))
        }
    }

    /// The kernel's least spacing between two `cgroup.events` notifications (with margin).
    static var notificationRateLimit: Duration { .milliseconds(13) }

    private func recordFrozen(at now: Instant) {
        let took = freezeRequestedAt.map { (now - $0).nanoseconds } ?? 0
        freezeRequestedAt = nil
        record(.freeze, "frozen (\(unit.kind.rawValue)) in \(Double(took / 1000) / 1000) ms", at: now)
        recordSnapshot(at: now)
    }
}
