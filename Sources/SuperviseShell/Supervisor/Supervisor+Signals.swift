import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Acts on each signal received, as `options.signalTable` says; SIGCHLD reaps.
    func handleSignals() {
        for signal in signals.drain() {
            guard signal != SignalNumber.childStatusChanged else {
                reap()
                continue
            }
            let name = SignalName.describe(signal)
            let action = options.signalTable.action(for: signal) ?? .ignore
            switch action {
            case .background:
                logger.info("\(name): moving every child to the background")
                for child in children { child.handle(.background, at: MonotonicClock.now()) }
            case .foreground:
                logger.info("\(name): bringing every child to the foreground")
                for child in children { child.handle(.foreground, at: MonotonicClock.now()) }
            case .terminate:
                terminationSignals += 1
                let escalate = terminationSignals > 1
                logger.notice("\(name): \(escalate ? "killing" : "terminating") every child")
                for child in children { child.handle(.terminate(escalate: escalate), at: MonotonicClock.now()) }
            case .forward, .forwardGroup, .forwardTree:
                if let target = action.forwardTarget { forwardToEveryChild(signal, name, target) }
            case .stop:
                stopJob(onSignal: signal)
            case .ignore:
                logger.notice("\(name): ignored")
            }
        }
    }

    /// A forwarding action: `signal` to each child's `target`, or a note that it is gone.
    private func forwardToEveryChild(_ signal: Int32, _ name: String, _ target: SignalTarget) {
        logger.log(level: SignalTable.routine.contains(signal) ? .debug : .notice,
                   "\(name): forwarding it to every child's \(target.noun)")
        for child in children where child.hasProcesses {
            if !forward(signal, to: target, of: child, note: "forwarded \(name) to its \(target.noun)") {
                child.record(.note, "\(name) not forwarded: its main process has exited", at: MonotonicClock.now())
            }
        }
    }

    /// Sends `signal` to the processes of `child` that `target` names, as the rule says
    /// (``SignalTarget/recipients(mainPID:)``), and records `note` in its timeline; `false`
    /// when the target is gone (the main process has exited).
    func forward(_ signal: Int32, to target: SignalTarget, of child: SupervisedChild, note: String) -> Bool {
        // The main process is alive until reaped: reaping takes it out of `childrenByPID`.
        let mainPID = childrenByPID[child.pid] === child ? child.pid : nil
        guard let recipients = target.recipients(mainPID: mainPID) else { return false }
        child.record(.note, note, at: MonotonicClock.now())
        child.unit.send(signal, to: recipients)
        return true
    }

    /// Collects every status the kernel has: exits of children, stops (for the sigstop
    /// freezer's verification: a child's, or an orphaned descendant's; and a main process
    /// stopped by a signal), continues (someone may have thawed a suspended child with
    /// SIGCONT, or continued a stopped one), and orphaned descendants that were reparented here.
    func reap() {
        var sawStop = false
        var sawContinue = false
        while let change = Reaper.next() {
            switch change {
            case .stopped(let pid, let signal):
                sawStop = true
                guard let child = childrenByPID[pid] else { continue }
                child.handle(.mainProcessStopped(signal: signal), at: MonotonicClock.now())
                mainProcessStopped(child, pid: pid, by: signal)
            case .continued(let pid):
                sawContinue = true
                childrenByPID[pid]?.handle(.mainProcessContinued, at: MonotonicClock.now())
            case .terminated(let pid, let termination): reaped(pid, termination)
            }
        }
        if sawStop {
            for child in children { child.checkFrozen(at: MonotonicClock.now()) }
        }
        if sawContinue {
            for child in children { child.lookForOutsideChange(at: MonotonicClock.now()) }
        }
        for child in children where child.state == .exited && !child.isFinished {
            if child.unit.isEmpty() { child.handle(.treeEmptied, at: MonotonicClock.now()) }
        }
    }

    /// A child (or an orphan, which is only collected) was reaped: its run is over.
    private func reaped(_ pid: Int32, _ termination: ChildTermination) {
        guard let child = childrenByPID.removeValue(forKey: pid) else { return }
        takeTerminalBack(from: pid)
        let launchedAt = child.lifecycle.launchedAt, now = MonotonicClock.now()
        child.handle(.exited(termination, treeEmpty: child.unit.isEmpty()), at: now)
        mainProcessExited(child, launchedAt: launchedAt, at: now)
        if let exit = child.lifecycle.exit { perform(core.handle(.childExited(name: child.name, exit))) }
    }
}
