/// Which of a child's processes a forwarded signal reaches (`--signal SIG=forward[-group|-tree]`,
/// `signal NAME SIG [main|group|tree]`); docs/cli.md, "Who gets a forwarded signal".
public enum SignalTarget: String, Sendable, CaseIterable {
    /// The process the supervisor spawned: a server's master, which passes the signal on to
    /// its workers as it means to (gunicorn, nginx and PostgreSQL reload on HUP this way).
    case main
    /// The process group the supervisor made the main process the leader of, as dumb-init and
    /// `tini -g` do: what a terminal's Ctrl-C reaches.
    case group
    /// Every process of the child's tree, also those that left its group: the reach of a
    /// termination's stop signal.
    case tree

    /// The processes a signal sent to `self` reaches, given the pid of the child's main process
    /// while it is alive (not yet reaped: until then no other process can have its pid, and the
    /// group it leads keeps its id); `nil` when the target is gone: the main process and the
    /// group it was made leader of are reached only while that process lives, as tini and
    /// dumb-init forward only while their child runs. The tree is reached while any of it is.
    public func recipients(mainPID: Int32?) -> SignalRecipients? {
        switch self {
        case .tree: return .tree
        case .main: return mainPID.flatMap { $0 > 0 ? .process($0) : nil }
        case .group: return mainPID.flatMap { $0 > 0 ? .processGroup($0) : nil }
        }
    }
}

/// The processes one signal is sent to, as the freezer's unit carries it out.
public enum SignalRecipients: Equatable, Sendable {
    /// One process, by the pid the supervisor spawned it with (in its own PID namespace).
    case process(Int32)
    /// Every member of a process group, by its id: the main process's pid, the spawner made it
    /// the group's leader. Members that left it (`setsid`, `setpgid`) are not reached.
    case processGroup(Int32)
    /// Every process of the child's tree (its cgroup, or the tree the sigstop freezer follows).
    case tree
}

extension SignalTarget {
    /// What the target is called in logs and timelines: "main process", "process group", "tree".
    public var noun: String {
        switch self {
        case .main: "main process"
        case .group: "process group"
        case .tree: "tree"
        }
    }
}
