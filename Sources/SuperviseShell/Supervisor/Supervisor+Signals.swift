import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
#if canImport(Glibc)
import Glibc
#endif

extension Supervisor {
    /// Acts on each signal received, as `options.signalTable` says; SIGCHLD reaps.
    func handleSignals() {
        for signal in signals.drain() {
            guard signal != SIGCHLD else {
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
    /// freezer's verification: a child's, or an orphaned descendant's), continues (someone
    /// may have thawed a suspended child with SIGCONT), and orphaned descendants that were
    /// reparented here.
    func reap() {
        var status: Int32 = 0
        var sawStop = false
        var sawContinue = false
        while true {
            let pid = waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED)
            guard pid > 0 else { break }
            if status & 0xff == 0x7f {
                sawStop = true
                continue
            }
            if status == 0xffff {  // WIFCONTINUED
                sawContinue = true
                continue
            }
            guard let child = childrenByPID[pid] else { continue }
            childrenByPID[pid] = nil
            let termination = ChildTermination(waitStatus: status)
            child.handle(.exited(termination, treeEmpty: child.unit.isEmpty()), at: MonotonicClock.now())
            if let exit = child.lifecycle.exit { outcome.childStatuses.append(exit.countedStatus) }
            logger.info("\(child.name): \(termination.summary)")
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
}
