#if canImport(Glibc)
import Glibc
#endif

extension Supervisor {
    /// SIGUSR1 backgrounds every child, SIGUSR2 brings every child back, SIGTERM/SIGINT/SIGHUP
    /// terminate them (a second one kills), SIGCHLD reaps.
    func handleSignals() {
        for signal in signals.drain() {
            let now = MonotonicClock.now()
            switch signal {
            case SIGCHLD:
                reap(at: now)
            case SIGUSR1:
                logger.info("SIGUSR1: moving every child to the background")
                for child in children { child.handle(.background, at: now) }
            case SIGUSR2:
                logger.info("SIGUSR2: bringing every child to the foreground")
                for child in children { child.handle(.foreground, at: now) }
            default:
                terminationSignals += 1
                let escalate = terminationSignals > 1
                logger.notice("signal \(signal): \(escalate ? "killing" : "terminating") every child")
                for child in children {
                    child.cancelRestart(at: now)
                    child.handle(.terminate(escalate: escalate), at: now)
                }
            }
        }
    }

    /// Collects every status the kernel has: exits of children, stops (for the sigstop
    /// freezer's verification: a child's, or an orphaned descendant's), and orphaned
    /// descendants that were reparented here.
    func reap(at now: Instant) {
        var status: Int32 = 0
        var sawStop = false
        while true {
            let pid = waitpid(-1, &status, WNOHANG | WUNTRACED)
            guard pid > 0 else { break }
            if status & 0xff == 0x7f {
                sawStop = true
                continue
            }
            guard let child = childrenByPID[pid] else { continue }
            childrenByPID[pid] = nil
            let termination = ChildTermination(waitStatus: status)
            child.handle(.exited(termination, treeEmpty: child.unit.isEmpty()), at: now)
            if let exit = child.lifecycle.exit { outcome.childStatuses.append(exit.countedStatus) }
            logger.info("\(child.name): \(termination)")
        }
        if sawStop {
            for child in children { child.checkFrozen(at: now) }
        }
        for child in children where child.state == .exited && !child.isFinished {
            if child.unit.isEmpty() { child.handle(.treeEmptied, at: now) }
        }
    }
}
