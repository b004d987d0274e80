extension ChildLifecycle {
    /// SIGSTOP on Linux: the signal the sigstop freezer stops a tree with.
    static let freezerStopSignal: Int32 = 19

    /// The main process was stopped by `signal` (`signal NAME STOP`, a terminal's SIGTTIN or
    /// SIGTTOU, a SIGTSTP with no handler): shown and noted once, until it is continued. While
    /// the child is suspending or suspended a SIGSTOP is the freeze's own (the sigstop freezer
    /// stops with it), and the state already says that the child can't run.
    mutating func mainProcessStopped(by signal: Int32) {
        guard !hasNoProcess, stoppedBy != signal else { return }
        if signal == Self.freezerStopSignal, state == .suspending || state == .suspended { return }
        stoppedBy = signal
        actions.append(.stoppedBySignal(signal))
    }

    /// The main process was continued, by whoever sent SIGCONT.
    mutating func mainProcessContinued() {
        guard stoppedBy != nil else { return }
        stoppedBy = nil
        actions.append(.note("its main process was continued"))
    }

    /// A child stopped by a signal is continued when it is to run: `foreground`, `event`,
    /// `terminate`, and every thaw. (The kernel continues a process the moment SIGCONT is sent.)
    mutating func continueIfStopped() {
        guard stoppedBy != nil else { return }
        stoppedBy = nil
        actions.append(.continueTree)
    }
}
