extension ChildLifecycle {
    /// Acts on every timer due at `now`: launch timeout, window end, expiry warning, limit,
    /// freeze timeout, graces, a look at a suspended child or a thaw that goes on.
    mutating func tick(_ now: Instant) {
        if let at = thawAgainAt, at <= now {
            thawAgainAt = nil
            actions.append(.continueThaw)
        }
        switch state {
        case .launching:
            if let deadline = launchDeadline, deadline <= now { launchTimedOut(now) }
        case .background:
            if let end = windowEnd, end <= now { windowEnded(now) }
            if state == .background, warningSentAt == nil, let at = warningAt, at <= now, !openTasks.isEmpty {
                warningSentAt = now
                expireOpenTasks(now)
            }
            if state == .background, let at = limitAt, at <= now, !openTasks.isEmpty { limitReached(now) }
        case .suspending:
            // At the freeze timeout the kernel is asked once more, whether a re-check is due
            // or not (cgroup v2 waits for its notification): its answer decides, and a freeze
            // that completed while the supervisor was not running is not undone. Only a look
            // left unanswered times out on a later tick.
            if let recheck = freezeRecheckAt, recheck <= now { return freezeRecheckDue() }
            if let deadline = freezeDeadline, deadline <= now {
                if freezeTimeoutLookAsked { return freezeTimedOut(now) }
                freezeTimeoutLookAsked = true
                freezeRecheckDue()
            }
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
        case .suspended:
            if let at = lookAgainAt, at <= now {
                lookAgainAt = nil
                actions.append(.lookForOutsideChange)
            }
        case .active, .notRunning:
            break
        }
    }

    /// A child still holding tasks at the limit is killed, but never sooner than the expiry warning
    /// after its `expire`: when `expire` went out late (the supervisor was busy or not running when
    /// the warning was due, so at the latest with this very tick), the kill moves to that instant.
    private mutating func limitReached(_ now: Instant) {
        if let sent = warningSentAt, now < sent + settings.expiryWarning {
            limitAt = sent + settings.expiryWarning
            return
        }
        killForViolation(.expiry, now)
    }

    /// The supervisor was not running for `gap`: the child is not judged on that time, so every
    /// deadline that judges or kills it moves by it — launch timeout, window, expiry warning, limit, freeze
    /// timeout, grace, leftover grace. A freeze re-check (a look) and a restart's back-off (the
    /// supervisor's own wait) stay: they only fall due.
    mutating func moveDeadlines(by gap: Duration) {
        launchDeadline = launchDeadline.map { $0 + gap }
        windowEnd = windowEnd.map { $0 + gap }
        warningAt = warningAt.map { $0 + gap }
        limitAt = limitAt.map { $0 + gap }
        freezeDeadline = freezeDeadline.map { $0 + gap }
        graceEnd = graceEnd.map { $0 + gap }
        leftoverGraceEnd = leftoverGraceEnd.map { $0 + gap }
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
        if kind == .expiry { endScheduledTask(.expired, now) }
        clearBackgroundTimers()
        termination = .violation
        setState(.terminating)
        actions.append(.violation(violation))
        actions.append(.killTree)
    }

    /// The main process was reaped: record how, and run the ladder on what it left behind.
    mutating func exited(_ how: ChildTermination, treeEmpty: Bool, _ now: Instant) {
        guard !hasNoProcess else { return }
        stoppedBy = nil  // a stop of a process that is gone
        endScheduledTask(.interrupted, now)
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

    /// A child that exits within a termination's grace stopped cleanly and counts as 0: with 0,
    /// by the stop signal, or with the code 128 + the stop signal, which is how a program that
    /// handles the signal says it stopped for it (a JVM after its shutdown hooks, a shell's
    /// `trap 'exit 143' TERM`). A reclaimed child counts as 0 too.
    private func countedStatus(_ how: ChildTermination, by: ExitCause) -> Int32 {
        if by == .reclaim { return 0 }
        let stoppedCleanly = how == .exited(0) || how == .signaled(settings.stopSignal)
            || how == .exited(128 + settings.stopSignal)
        if by == .terminate, stoppedCleanly { return 0 }
        return how.shellStatus
    }
}
