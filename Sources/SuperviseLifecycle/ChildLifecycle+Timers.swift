extension ChildLifecycle {
    /// Acts on every timer due at `now`: launch timeout, window end, expiry warning, limit,
    /// freeze timeout, graces.
    mutating func tick(_ now: Instant) {
        switch state {
        case .launching:
            if let deadline = launchDeadline, deadline <= now { launchTimedOut(now) }
        case .background:
            if let end = windowEnd, end <= now { windowEnded(now) }
            if state == .background, !warningSent, let at = warningAt, at <= now, !openTasks.isEmpty {
                warningSent = true
                expireOpenTasks(now)
            }
            if state == .background, let at = limitAt, at <= now, !openTasks.isEmpty {
                killForViolation(.expiry, now)
            }
        case .suspending:
            // A check due goes first: a freeze verified by it is not judged late.
            if let recheck = freezeRecheckAt, recheck <= now { return freezeRecheckDue() }
            if let deadline = freezeDeadline, deadline <= now { freezeTimedOut(now) }
        case .terminating:
            if let end = graceEnd, end <= now {
                graceEnd = nil
                termination = .kill
                actions.append(.killTree)
            }
        case .exited:
            if let end = leftoverGraceEnd, end <= now {
                leftoverGraceEnd = nil
                actions.append(.killTree)
            }
        case .active, .suspended, .notRunning:
            break
        }
    }

    /// The window is judged only at the instant it ends.
    private mutating func windowEnded(_ now: Instant) {
        windowEnd = nil
        windowPassed = true
        closeFirstWindow()
        guard openTasks.isEmpty, !doneForCurrentEntry else { return }
        guard aware else {
            actions.append(.note("window passed: suspending the unaware child"))
            return beginSuspending(now)
        }
        switch settings.onWindowOverrun {
        case .kill:
            killForViolation(.window, now)
        case .suspend:
            let violation = Violation(kind: .window, at: now, action: .suspended, tasks: [])
            violationRecords.append(violation)
            actions.append(.violation(violation))
            beginSuspending(now)
        }
    }

    /// Kills the whole tree and records the violation with the tasks still open.
    mutating func killForViolation(_ kind: Violation.Kind, _ now: Instant) {
        let violation = Violation(kind: kind, at: now, action: .killed, tasks: Array(openTasks))
        violationRecords.append(violation)
        clearBackgroundTimers()
        termination = .violation
        setState(.terminating)
        actions.append(.violation(violation))
        actions.append(.killTree)
    }

    /// The main process was reaped: record how, and run the ladder on what it left behind.
    mutating func exited(_ how: ChildTermination, treeEmpty: Bool, _ now: Instant) {
        guard !hasNoProcess else { return }
        if state == .suspending || state == .suspended { thaw() }
        let by = termination ?? .self
        let inTime: Bool?
        switch by {
        case .terminate: inTime = true
        case .kill: inTime = false
        case .self, .violation, .reclaim: inTime = nil
        }
        exit = ExitRecord(termination: how, by: by, inTime: inTime, at: now,
                          countedStatus: countedStatus(how, by: by))
        clearBackgroundTimers()
        launchDeadline = nil
        graceEnd = nil
        freezeDeadline = nil
        setState(by == .reclaim ? .notRunning : .exited)
        guard !treeEmpty else { return }
        if by == .violation || by == .kill || by == .reclaim {
            actions.append(.killTree)
        } else {
            actions.append(.leftProcessesBehind(signal: settings.stopSignal))
            actions.append(.signalTree(settings.stopSignal))
            leftoverGraceEnd = now + settings.grace
        }
    }

    /// A child that exits within a termination's grace, with 0 or by the stop signal, counts as
    /// 0, and so does a reclaimed one.
    private func countedStatus(_ how: ChildTermination, by: ExitCause) -> Int32 {
        if by == .reclaim { return 0 }
        if by == .terminate, how == .exited(0) || how == .signaled(settings.stopSignal) { return 0 }
        return how.shellStatus
    }
}
