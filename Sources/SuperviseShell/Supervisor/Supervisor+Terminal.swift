import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

/// The terminal on stdin (docs/cli.md, "Terminals and shells"): handing it to a child under
/// `--control none` and back, a stop of the job (Ctrl-Z) and its `fg`, and the one-line hint for a
/// child that wanted the terminal under `--control stdin`. The rules are `TerminalJobControl`'s,
/// `ControlHint`'s and, for which children stop with the job, the run core's.
extension Supervisor {
    /// Whether the next launch hands the terminal to its child.
    var handsTerminalOver: Bool {
        options.control == .none && jobControl.handsOver(foreground: ControllingTerminal.foregroundGroup())
    }

    /// `--control stdin` with a terminal on stdin: a child that wants the terminal can't have it.
    private var stdinControlAtTerminal: Bool {
        options.control == .stdin && Descriptor.isTerminal(Descriptor.standardInput)
    }

    /// A launch that asked for the terminal started `pid`: it holds the terminal if it took it.
    func launchedWithTerminal(_ pid: Int32) {
        if ControllingTerminal.foregroundGroup() == pid { jobControl.handedOver(to: pid) }
    }

    /// Gives the terminal back to the supervisor's group when the child's group `group` it was
    /// handed to is gone, or at the end of the run (`group` nil).
    func takeTerminalBack(from group: Int32? = nil) {
        guard let own = jobControl.takeBack(from: group, foreground: ControllingTerminal.foregroundGroup()) else { return }
        if case .failure(let error) = ControllingTerminal.setForegroundGroup(own) {
            logger.warning("cannot give the terminal back to supervise's process group: \(error.sentenceText)")
        }
    }

    /// SIGTSTP, SIGTTIN or SIGTTOU sent to the supervisor (the `stop` action).
    func stopJob(onSignal signal: Int32) {
        let name = SignalName.describe(signal)
        carryOut(jobControl.stop(bySignal: signal, foreground: ControllingTerminal.foregroundGroup()), cause: name)
    }

    /// The main process of `child` (its group `pid`) was stopped by `signal`: the hint when the
    /// terminal stopped it under `--control stdin`; a stop of the job when it was Ctrl-Z.
    func mainProcessStopped(_ child: SupervisedChild, pid: Int32, by signal: Int32) {
        if let hint = ControlHint.stopped(by: signal, stdinControlAtTerminal: stdinControlAtTerminal) {
            giveHint(hint, for: child)
        }
        guard let stop = jobControl.stop(ofChildGroup: pid, by: signal, foreground: ControllingTerminal.foregroundGroup()) else { return }
        carryOut(stop, cause: "\(child.name) stopped by \(SignalName.describe(signal))", child: child)
    }

    /// The main process of `child`, launched at `launchedAt`, exited: the hint when it did so at once.
    func mainProcessExited(_ child: SupervisedChild, launchedAt: Instant?, at now: Instant) {
        guard let launchedAt,
              let hint = ControlHint.exited(after: now - launchedAt, stdinControlAtTerminal: stdinControlAtTerminal)
        else { return }
        giveHint(hint, for: child)
    }

    /// Hands the run core `hint` for `child`, which logs one a run (``RunInput/hint(_:child:)``).
    private func giveHint(_ hint: String, for child: SupervisedChild) {
        guard let place = children.firstIndex(where: { $0 === child }) else { return }
        perform(core.handle(.hint(hint, child: place)))
    }

    private func carryOut(_ stop: TerminalJobControl.Stop, cause: String, child trigger: SupervisedChild? = nil) {
        switch stop {
        case .ignore(let reason):
            logger.notice("\(cause): ignored: \(reason)")
        case .continueChild:
            logger.notice("\(cause): continued: supervise is pid 1, and nothing else would continue it")
            trigger?.unit.signalTree(SignalNumber.continueStopped)
        case .stopJob(let forward, let wholeGroup, let takeBackTerminal):
            if takeBackTerminal { ControllingTerminal.setForegroundGroup(jobControl.ownGroup) }
            perform(core.handle(.jobStopping(signal: forward, name: SignalName.describe(forward), cause: cause,
                                             children: runChildren)))
            let (stopped, continued) = ControllingTerminal.stopUntilContinued(wholeGroup: wholeGroup)
            let gap = SupervisorGap(at: continued, length: continued - stopped, late: continued - stopped)
            supervisorWasAway(gap, stoppedAsJob: true)
            if let holder = jobControl.resumed(tookBack: takeBackTerminal, foreground: ControllingTerminal.foregroundGroup()) {
                ControllingTerminal.setForegroundGroup(holder)
            }
            perform(core.handle(.jobContinued), at: continued)
        }
    }
}
