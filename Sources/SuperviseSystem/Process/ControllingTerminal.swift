import SuperviseSystemCall
import SuperviseLifecycle
import Glibc
import SystemPackage

/// The terminal on the supervisor's standard input as job control sees it: its foreground
/// process group, handing it to a group, and stopping the supervisor as a terminal stops a job.
/// What to do is decided elsewhere (`TerminalJobControl`); these only make the calls.
public enum ControllingTerminal {
    /// The supervisor's process group.
    public static var ownGroup: Int32 { getpgrp() }

    /// The supervisor is pid 1 (of its PID namespace).
    public static var isPID1: Bool { getpid() == 1 }

    /// The foreground process group of the terminal on stdin, or nil when stdin is not this
    /// session's controlling terminal (not a terminal, or another session's).
    public static func foregroundGroup() -> Int32? {
        guard case .success(let group) = valueOrErrno({ tcgetpgrp(Descriptor.standardInput) }) else { return nil }
        return group
    }

    /// Makes `group` the terminal's foreground group. SIGTTOU is blocked meanwhile: a
    /// supervisor whose group is in the background would otherwise be stopped by it.
    @discardableResult
    public static func setForegroundGroup(_ group: Int32) -> Result<Void, Errno> {
        var ttou = sigset_t(), previous = sigset_t()
        sigemptyset(&ttou)
        sigaddset(&ttou, SIGTTOU)
        return statusOrErrno { pthread_sigmask(SIG_BLOCK, &ttou, &previous) }.flatMap {
            defer { restoreMask(previous) }
            return valueOrErrno { tcsetpgrp(Descriptor.standardInput, group) }.map { _ in () }
        }
    }

    /// Stops the supervisor (with its whole process group, `wholeGroup`) with SIGSTOP, as a
    /// terminal stops a job; returns once something continued it (`fg`, `bg`, SIGCONT), with
    /// the instants it stopped and ran again.
    public static func stopUntilContinued(wholeGroup: Bool) -> (stopped: Instant, continued: Instant) {
        var continueSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&continueSignal)
        sigaddset(&continueSignal, SIGCONT)
        guard case .success = statusOrErrno({ pthread_sigmask(SIG_BLOCK, &continueSignal, &previous) }) else {
            // Without SIGCONT blocked its arrival could not be waited for: no stop.
            let now = MonotonicClock.now()
            return (now, now)
        }
        defer { restoreMask(previous) }
        // A SIGCONT sent before this stop is not the one that ends it.
        var now = timespec()
        while case .success = valueOrErrno({ sigtimedwait(&continueSignal, nil, &now) }) {}
        let stopped = MonotonicClock.now()
        guard case .success = valueOrErrno({ kill(wholeGroup ? 0 : getpid(), SIGSTOP) }) else { return (stopped, stopped) }
        // The stop may take a moment to reach this thread; the SIGCONT that ends it is certain
        // (the kernel continues a process whatever its mask, and the signal stays pending).
        _ = valueOrErrno { sigwaitinfo(&continueSignal, nil) }
        return (stopped, MonotonicClock.now())
    }

    /// Puts back the signal mask a block saved. It fails only for an invalid `how`, never for a
    /// mask the kernel itself handed out, so there is no failure to report.
    private static func restoreMask(_ previous: sigset_t) {
        var previous = previous
        _ = statusOrErrno { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    }
}
