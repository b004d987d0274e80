import SuperviseLifecycle
import SuperviseSystem
import Glibc

/// What the supervisor does with a signal sent to it.
public enum SignalAction: String, Sendable, CaseIterable {
    /// Move every child to the background, as `background all`.
    case background
    /// Bring every child to the foreground, as `foreground all`.
    case foreground
    /// Terminate every child gracefully, as `terminate all`; a second terminating signal kills.
    case terminate
    /// Send the signal on to every child's main process, as tini does.
    case forward
    /// Send the signal on to every child's process group, as dumb-init and `tini -g` do.
    case forwardGroup = "forward-group"
    /// Send the signal on to every process of every child's tree.
    case forwardTree = "forward-tree"
    /// Stop the job as a terminal's Ctrl-Z does: the running children, then the supervisor;
    /// `fg` continues them. Only for the terminal's foreground job and not as pid 1, where
    /// something can continue it; otherwise ignored (``TerminalJobControl``).
    case stop
    /// Log it and carry on: nothing stops or kills the supervisor behind its children's back.
    case ignore

    /// What the run core is told to do (``RunCore``): a forwarding action with which of each
    /// child's processes the signal reaches.
    public var order: SignalOrder {
        switch self {
        case .background: .background
        case .foreground: .foreground
        case .terminate: .terminate
        case .forward: .forward(.main)
        case .forwardGroup: .forward(.group)
        case .forwardTree: .forward(.tree)
        case .stop: .stop
        case .ignore: .ignore
        }
    }
}

/// The action for every signal that can be sent to the supervisor from outside, in one table
/// (docs/cli.md, "Signals"), so that a run can remap it.
///
/// Left out: SIGCHLD (the supervisor reaps on it), SIGPIPE (ignored: a write to a closed pipe
/// fails with EPIPE instead), SIGKILL and SIGSTOP (they can't be caught), the fault signals the
/// supervisor's own code would raise (SEGV, BUS, ILL, FPE, TRAP, SYS), and the two real-time
/// signals the C library keeps for itself.
public struct SignalTable: Sendable {
    private let actions: [Int32: SignalAction]
    /// The signals `--signal` mapped.
    private let remapped: Set<Int32>
    /// Signals left ignored, as the supervisor was started with them: it does not take them (the
    /// kernel discards them) and its children start with them ignored.
    public let leftIgnored: [Int32]

    init(_ actions: [Int32: SignalAction], remapped: Set<Int32> = [], leftIgnored: [Int32] = []) {
        self.actions = actions
        self.remapped = remapped
        self.leftIgnored = leftIgnored
    }

    /// Signals that come as a matter of course, a terminal's resize (SIGWINCH): forwarded without a
    /// log line at the default level, which would get one per resize.
    public static let routine: Set<Int32> = [SIGWINCH]

    /// The signals a terminal sends to its foreground group (hangup, Ctrl-C, Ctrl-\), which
    /// `nohup` and a shell's background jobs have ignored: ignored at start, they stay ignored.
    public static let keptIgnoredIfInherited = [SIGHUP, SIGINT, SIGQUIT]

    /// The table a run starts with.
    public static let standard: SignalTable = {
        var actions: [Int32: SignalAction] = [
            SIGUSR1: .background, SIGUSR2: .foreground,
            SIGTERM: .terminate, SIGINT: .terminate, SIGHUP: .terminate,
            // Ctrl-Z stops the job with its children, as it would without a supervisor; the time
            // stopped moves every deadline, as any time the supervisor did not run.
            SIGTSTP: .stop, SIGTTIN: .stop, SIGTTOU: .stop,
            // The supervisor is continued by the kernel whatever it does; of its children, only
            // those a stop of the job stopped are continued (a suspended child stays suspended).
            SIGCONT: .ignore,
            // Resource limits of the supervisor itself, not of its children.
            SIGXCPU: .ignore, SIGXFSZ: .ignore,
        ]
        // Forwarded to the main process, as tini forwards: a program that wants a signal passed
        // on to its own children (a server's workers) does it itself, and one that does not
        // keep a signal's default action in them (gunicorn's workers die of SIGHUP).
        for signal in [SIGQUIT, SIGABRT, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGWINCH, SIGURG, SIGIO, SIGSTKFLT] {
            actions[signal] = .forward
        }
        for signal in SignalName.realTimeSignals { actions[signal] = .forward }
        return SignalTable(actions)
    }()

    /// The table with `signal` mapped to `action` (`--signal SIG=ACTION`).
    public func remapping(_ signal: Int32, to action: SignalAction) -> SignalTable {
        var actions = actions
        actions[signal] = action
        return SignalTable(actions, remapped: remapped.union([signal]), leftIgnored: leftIgnored)
    }

    /// The table for a supervisor started with `ignoredAtStart` ignored: those of
    /// ``keptIgnoredIfInherited`` that no `--signal` mapped are left ignored, by the supervisor
    /// and its children (what `nohup` means); a mapping says the user wants the signal taken.
    public func keepingIgnored(_ ignoredAtStart: Set<Int32>) -> SignalTable {
        let kept = Self.keptIgnoredIfInherited.filter { ignoredAtStart.contains($0) && !remapped.contains($0) }
        return SignalTable(actions.filter { !kept.contains($0.key) }, remapped: remapped, leftIgnored: kept)
    }

    /// `SIG=ACTION` of `--signal`: a signal the table has (any the supervisor can take) and an
    /// action.
    public static func parseMapping(_ text: String) throws(UsageError) -> (signal: Int32, action: SignalAction) {
        let usage = "expected SIG=ACTION, ACTION one of " + SignalAction.allCases.map(\.rawValue).joined(separator: ", ")
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("'\(ControlText.excerpt(text))': \(usage)")
        }
        let signal = try SignalName.parseAny(String(text[..<equals]))
        guard standard.action(for: signal) != nil else {
            throw UsageError("\(SignalName.describe(signal)) can't be remapped: the supervisor can't take it "
                + "(KILL, STOP, CHLD, PIPE and the fault signals keep their meaning)")
        }
        let word = text[text.index(after: equals)...]
        guard let action = SignalAction(rawValue: String(word)) else {
            throw UsageError("unknown action '\(ControlText.excerpt(word))': \(usage)")
        }
        return (signal, action)
    }

    /// Every signal the table has an action for, in increasing order.
    public var signals: [Int32] { actions.keys.sorted() }

    /// The action for `signal`, or `nil` when the supervisor does not take it.
    public func action(for signal: Int32) -> SignalAction? {
        actions[signal]
    }
}
