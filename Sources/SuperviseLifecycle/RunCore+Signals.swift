/// Signals sent to the supervisor (docs/cli.md, "Signals"), and who a forwarded one reaches
/// (docs/cli.md, "Who gets a forwarded signal").
extension RunCore {
    /// What `signal` sent to the supervisor does, as the signal table's `order` says; one the
    /// table says nothing of is only logged.
    mutating func received(_ signal: Int32, _ name: String, _ order: SignalOrder?, routine: Bool,
                           _ children: [RunChild]) -> [RunAction] {
        switch order {
        case .background:
            return [.log(.info, "\(name): moving every child to the background"), .feedEveryChild(.background)]
        case .foreground:
            return [.log(.info, "\(name): bringing every child to the foreground"), .feedEveryChild(.foreground)]
        case .terminate:
            // A second terminating signal means the user will not wait out the grace.
            terminationSignals += 1
            let escalate = terminationSignals > 1
            return [.log(.notice, "\(name): \(escalate ? "killing" : "terminating") every child"),
                    .feedEveryChild(.terminate(escalate: escalate))]
        case .forward(let target):
            var actions: [RunAction] = [.log(routine ? .debug : .notice, "\(name): forwarding it to every child's \(target.noun)")]
            for (place, child) in children.enumerated() where child.hasProcesses {
                let note = "forwarded \(name) to its \(target.noun)"
                actions.append(forward(signal, to: target, of: child, at: place, note: note)
                    ?? .note(child: place, "\(name) not forwarded: its main process has exited"))
            }
            return actions
        case .stop:
            return [.stopJob(signal: signal)]
        case .ignore, nil:
            return [.log(.notice, "\(name): ignored")]
        }
    }

    /// Sends `signal` to the processes of `child` (at `place`) that `target` names
    /// (``SignalTarget/recipients(mainPID:)``), recording `note`; `nil` when the target is gone
    /// (the main process was reaped).
    func forward(_ signal: Int32, to target: SignalTarget, of child: RunChild, at place: Int, note: String) -> RunAction? {
        guard let recipients = target.recipients(mainPID: child.mainProcessAlive ? child.pid : nil) else { return nil }
        return .send(signal, recipients, child: place, note: note)
    }
}

extension RunCore {
    /// After reaping: a child whose main process exited but whose run is not finished waits for
    /// what that process left behind (its leftover grace), and any reap may have taken the last
    /// of it: its tree is looked at. Others are not: a child that runs has a tree, and one whose
    /// run is finished has none to wait for.
    func reaped(_ children: [RunChild]) -> [RunAction] {
        children.indices.filter { children[$0].status.state == .exited && !children[$0].status.isFinished }
            .map { .checkTreeEmpty(child: $0) }
    }
}

extension RunCore {
    /// `signal NAME SIG [main|group|tree]` for `child` (at `place`): to the processes `target`
    /// names, recorded in its timeline; refused for a child with no process, and for a target
    /// that is gone.
    public func signalCommand(_ signal: Int32, name: String, to target: SignalTarget, of child: RunChild,
                              at place: Int) -> [RunAction] {
        guard child.hasProcesses else {
            return [.refuse("\(child.name): cannot send \(name): it is \(child.status.state.rawValue), with no process")]
        }
        let note = "sent \(name) to its \(target.noun) (signal command)"
        return [forward(signal, to: target, of: child, at: place, note: note)
            ?? .refuse("\(child.name): cannot send \(name) to its \(target.noun): its main process has exited "
                + "(the target tree reaches what is left)")]
    }
}
