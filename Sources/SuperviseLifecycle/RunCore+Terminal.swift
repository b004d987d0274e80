/// A stop of the job (Ctrl-Z) and its `fg` (docs/cli.md, "Terminals and shells"): which children
/// stop with the supervisor, and which `fg` continues. How a stop is taken (whether it stops the
/// job at all, and the terminal's hand-over) is ``TerminalJobControl``'s.
extension RunCore {
    /// SIGCONT, which continues what a stop of the job stopped.
    static let continueSignal: Int32 = 18

    /// The job stops on `signal` (called `name`), for `cause`: every child that runs gets the
    /// signal and is remembered, for `fg` to continue it and no other.
    mutating func jobStopping(_ signal: Int32, _ name: String, cause: String, _ children: [RunChild]) -> [RunAction] {
        stoppedWithJob = children.indices.filter { children[$0].hasProcesses && Self.stopsWithJob(children[$0].status.state) }
        let count = stoppedWithJob.count
        return [.log(.notice, "\(cause): stopping the job: \(count) running \(count == 1 ? "child" : "children") and supervise; fg continues them")]
            + stoppedWithJob.map { .send(signal, .tree, child: $0, note: "stopped with the job: sent \(name)") }
    }

    /// The supervisor was continued after a stop of the job: the children that stop stopped are
    /// continued, once.
    mutating func jobContinued() -> [RunAction] {
        defer { stoppedWithJob = [] }
        return stoppedWithJob.map { .send(Self.continueSignal, .tree, child: $0, note: "continued with the job: sent SIGCONT") }
    }

    /// Whether a stop of the job stops a child in `state`: one that runs. A suspended child is
    /// already frozen, and one suspending is being frozen: `fg` must leave both as they are.
    static func stopsWithJob(_ state: ChildState) -> Bool {
        switch state {
        case .launching, .active, .background, .terminating: true
        case .suspending, .suspended, .exited, .notRunning: false
        }
    }

    /// A hint on giving the child at `place` the terminal (`ControlHint`): the first of the run
    /// is logged as the child's, and no other: one says it.
    mutating func hint(_ text: String, for place: Int) -> [RunAction] {
        guard !gaveHint else { return [] }
        gaveHint = true
        return [.childLog(child: place, .notice, text)]
    }
}
