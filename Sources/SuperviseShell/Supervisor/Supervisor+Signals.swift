import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Hands each signal received to the run core, with what `options.signalTable` says of it
    /// (``RunCore`` decides); SIGCHLD reaps.
    func handleSignals() {
        for signal in signals.drain() {
            guard signal != SignalNumber.childStatusChanged else {
                reap()
                continue
            }
            perform(core.handle(.signal(signal, name: SignalName.describe(signal), order: options.signalTable.action(for: signal)?.order,
                                        routine: SignalTable.routine.contains(signal), children: runChildren)))
        }
    }

    /// Collects every status the kernel has: exits of children, stops (for the sigstop
    /// freezer's verification: a child's, or an orphaned descendant's; and a main process
    /// stopped by a signal), continues (someone may have thawed a suspended child with
    /// SIGCONT, or continued a stopped one), and orphaned descendants that were reparented here;
    /// then the run core says whose tree to look at (``RunInput/reaped(_:)``).
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
            // A look that ended earlier in this turn (a `status`'s) was made before the continue.
            for freezer in freezers.values { freezer.processContinued() }
            for child in children { child.lookForOutsideChange(at: MonotonicClock.now()) }
        }
        perform(core.handle(.reaped(runChildren)))
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
