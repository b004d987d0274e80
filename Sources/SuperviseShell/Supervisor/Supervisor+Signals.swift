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
            switch options.signalTable.action(for: signal) ?? .ignore {
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
            case .forward:
                logger.notice("\(name): forwarding it to every child's processes")
                for child in children where child.hasProcesses {
                    child.record(.note, "forwarded \(name)", at: MonotonicClock.now())
                    child.unit.signalTree(signal)
                }
            case .ignore:
                logger.notice("\(name): ignored")
            }
        }
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
                childrenByPID[pid]?.handle(.mainProcessStopped(signal: signal), at: MonotonicClock.now())
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
        child.handle(.exited(termination, treeEmpty: child.unit.isEmpty()), at: MonotonicClock.now())
        if let exit = child.lifecycle.exit { outcome.count(exit.countedStatus, of: child.name) }
    }
}
