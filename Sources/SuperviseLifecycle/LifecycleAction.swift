import SuperviseProtocol

/// What the shell must do for one child, in order.
public enum LifecycleAction: Equatable, Sendable {
    /// Write this event to the child (the sends of one step go out in one `write(2)`).
    case send(Event)
    /// Ask the freezer to freeze the child, then check it (``checkFrozen``).
    case freeze
    /// Ask the freezer whether every process is frozen: report `.freezeVerified`, `.notFrozenYet`,
    /// or `.freezeUnfinished`.
    case checkFrozen
    /// The freeze was verified, `took` after it was asked for: record it.
    case frozen(took: Duration)
    /// Look at the suspended child for what someone else did to it: report `.thawedFromOutside`
    /// or `.killedWhileFrozen` if anything.
    case lookForOutsideChange
    /// Report `.treeEmptied` if nothing of the exited child's tree is left.
    case checkTreeEmpty
    /// Thaw the child and verify it runs: report `.thawUnfinished` if the thaw goes on at the
    /// next turn (sigstop, a large tree).
    case thaw
    /// Go on with a thaw that goes on: report `.thawUnfinished` again if it still does.
    case continueThaw
    /// Send this signal to every process of the child's tree, followed by SIGCONT.
    case signalTree(Int32)
    /// Send SIGCONT to every process of the child's tree: its main process was stopped by a
    /// signal, and the child is to run.
    case continueTree
    /// SIGKILL the child's whole tree.
    case killTree
    /// The reported state changed.
    case stateChanged(ChildState)
    /// A violation was judged.
    case violation(Violation)
    /// A freeze attempt's outcome worth recording in the timeline (`freeze-failed …`).
    case freezeFailed(String)
    /// A command was refused; the shell prints this reason.
    case refuse(String)
    /// Something worth a timeline note and a log line.
    case note(String)
    /// The main process was stopped by `signal`, not by the freezer: worth a timeline note and
    /// a log line, the signal named by the shell.
    case stoppedBySignal(Int32)
    /// The exited child left processes behind, and the ``signalTree(_:)`` that follows sends
    /// them `signal`: worth a timeline note and a log line, the signal named by the shell.
    case leftProcessesBehind(signal: Int32)
    /// The next run starts `after` this wait; it will be run number `run`.
    case restartScheduled(after: Duration, run: Int)
    /// A pending restart was dropped: the child was told to terminate.
    case restartCancelled
    /// Start the next run now (its lifecycle is already fresh); report `.launched` or `.spawnFailed`.
    case startRun
}

extension [LifecycleAction] {
    /// Moves a thaw after the events sent right after it. A frozen child's pipe holds them: the
    /// thaw then wakes it once, to find them there, rather than once to run and again for its
    /// events (30–50 µs a foreground on a 2-core VM; docs/performance.md). What the child reads
    /// is the same, and it can read none of it before the thaw.
    mutating func sendEventsBeforeThawing() {
        guard let thaw = firstIndex(of: .thaw) else { return }
        let events = self[(thaw + 1)...].prefix { if case .send = $0 { true } else { false } }.count
        guard events > 0 else { return }
        remove(at: thaw)
        insert(.thaw, at: thaw + events)
    }
}
