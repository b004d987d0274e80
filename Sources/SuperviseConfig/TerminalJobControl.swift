import Glibc

/// The rules for the terminal on the supervisor's standard input (docs/cli.md, "Terminals and
/// shells"): when a launch hands it to a child, when it is given back, and what a job-control
/// stop means. Pure: the shell reads the terminal's foreground group and carries the answers out.
///
/// A stop of the job (Ctrl-Z) stops the running children and then the supervisor, as a terminal
/// stops a job run without a supervisor; `fg` continues the supervisor, which continues the
/// children that stop stopped (which ones is the run core's, `RunCore+Terminal`). Only where
/// something can continue it: not as pid 1, and only for a supervisor that is the terminal's
/// foreground job.
public struct TerminalJobControl: Sendable {
    /// The supervisor's own process group.
    public let ownGroup: Int32
    /// The supervisor is pid 1: nothing above it can continue a stopped job.
    public let isPID1: Bool
    /// The child's group a launch handed the terminal to, until it is given back.
    public private(set) var handedTo: Int32?

    public init(ownGroup: Int32, isPID1: Bool) {
        self.ownGroup = ownGroup
        self.isPID1 = isPID1
    }

    /// What a job-control stop does.
    public enum Stop: Equatable, Sendable {
        /// Send `forward` to the running children, give the terminal back to the supervisor's
        /// group (`takeBackTerminal`), then stop the supervisor — its whole group when the
        /// terminal's signal reached only the child (`wholeGroup`), as it would have reached the
        /// shell's job.
        case stopJob(forward: Int32, wholeGroup: Bool, takeBackTerminal: Bool)
        /// Continue the stopped child at once: nothing could continue it (pid 1).
        case continueChild
        /// Take no part in it, for this reason (logged).
        case ignore(String)
    }

    /// Whether a launch under `--control none` hands the terminal to the child: only when it is
    /// the supervisor's to hand (its own group's, or the child's it handed it to). A supervisor
    /// started in the background (`&`) never takes the terminal from the shell.
    public func handsOver(foreground: Int32?) -> Bool {
        guard let foreground else { return false }
        return foreground == ownGroup || foreground == handedTo
    }

    /// A launch handed the terminal to `group`.
    public mutating func handedOver(to group: Int32) {
        handedTo = group
    }

    /// The group to give the terminal back to — the supervisor's own — when the child's group
    /// `group` it was handed to is gone (its main process exited), or at the end of the run
    /// (`group` nil), if the terminal is still with that group: otherwise a shell or the
    /// supervisor's parent would find it held by a group that no longer runs. The supervisor's
    /// group outside its PID namespace (pid 1 under `unshare --pid`) reads as 0 and can't be
    /// named: nothing is given back then.
    public mutating func takeBack(from group: Int32? = nil, foreground: Int32?) -> Int32? {
        guard let holder = handedTo, group == nil || group == holder else { return nil }
        handedTo = nil
        return foreground == holder && ownGroup > 0 ? ownGroup : nil
    }

    /// A SIGTSTP, SIGTTIN or SIGTTOU sent to the supervisor: Ctrl-Z when its group is the
    /// terminal's foreground group (`--control stdin`, or a child run with `--user`).
    public func stop(bySignal signal: Int32, foreground: Int32?) -> Stop {
        if isPID1 { return .ignore("supervise is pid 1, and nothing would continue it") }
        guard foreground == ownGroup else { return .ignore("supervise is not the terminal's foreground job") }
        return .stopJob(forward: signal, wholeGroup: false, takeBackTerminal: false)
    }

    /// The main process of the child whose group is `group` was stopped by `signal`: a SIGTSTP
    /// of the child that holds the terminal is Ctrl-Z (or the child suspending itself, as vim
    /// does) and stops the job; any other stop is the child's own (nil).
    public func stop(ofChildGroup group: Int32, by signal: Int32, foreground: Int32?) -> Stop? {
        guard signal == SIGTSTP, group == handedTo, foreground == group else { return nil }
        return isPID1 ? .continueChild : .stopJob(forward: SIGTSTP, wholeGroup: true, takeBackTerminal: true)
    }

    /// The supervisor was continued after a stop of the job (that took the terminal back, with
    /// `tookBack`): the group to hand the terminal to again — the child's — when `fg` made the
    /// supervisor's group the foreground again; after `bg` it stays the shell's.
    public mutating func resumed(tookBack: Bool, foreground: Int32?) -> Int32? {
        guard tookBack, let holder = handedTo else { return nil }
        guard foreground == ownGroup else {
            handedTo = nil
            return nil
        }
        return holder
    }
}
