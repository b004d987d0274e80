import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging

extension Supervisor {
    /// Runs buffered stdin commands until one holds the reader or none is left, after ending
    /// the holds of control clients that are over.
    ///
    /// Called only between inputs, once the last one's actions are all carried out (never from
    /// inside a child's decision): a command run while a decision's `freeze` was still to come
    /// once left a child frozen while its state read `active`.
    ///
    /// Each command is taken at the time it runs: the one before may have taken a while.
    func runCommands() {
        // A freeze verified by the last input counts before any command can thaw the child.
        reclaimOverBudget()
        releaseClientHolds(at: MonotonicClock.now())
        guard let commands else { return }
        releaseHold(at: MonotonicClock.now())
        while !runIsOver, let line = commands.nextLine() {
            if line.isTooLong {
                reject(.stdin(line: line.number), line.text + "…", "ignored: the line is over \(CommandReader.maxLineLength) bytes; "
                    + "keep a command under \(CommandReader.maxLineLength / 1024) KiB")
            } else {
                execute(line.text, from: .stdin(line: line.number), at: MonotonicClock.now())
            }
            releaseHold(at: MonotonicClock.now())
        }
    }

    /// Runs the command a control client sent, between inputs as a stdin command, and answers
    /// it unless a `wait` or `sleep` holds the answer.
    func runClientCommand(_ client: ControlClient, _ text: String) {
        reclaimOverBudget()
        logger.debug("control socket (uid \(client.connection.peer.uid)): \(ControlText.excerpt(text))")
        execute(text, from: .client(client), at: MonotonicClock.now())
        if client.hold == nil {
            control?.finish(client, client.outcome)
        } else {
            releaseClientHolds(at: MonotonicClock.now())
        }
    }

    private func execute(_ text: String, from origin: CommandOrigin, at now: Instant) {
        let command: ControlCommand
        do {
            guard let parsed = try ControlParser.parse(text) else {
                if case .client(let client) = origin { client.usageError = "no command: the line is blank or a comment" }
                return
            }
            command = parsed
        } catch {
            switch origin {
            case .stdin(let line):
                logger.error("\(echo(for: origin).ignored(line: line, error))")
                endRunIfScripted(line, text, error.message)
            case .client(let client):
                client.usageError = error.message
            }
            return
        }
        switch command {
        case .background(let target): apply(.background, to: target, origin, text)
        case .foreground(let target): apply(.foreground, to: target, origin, text)
        case .terminate(let target):
            apply(.terminate(escalate: false), to: target, origin, text)
        case .event(let target, let kind, let eventText):
            apply(.event(kind: kind, text: eventText), to: target, origin, text)
        case .start(let target): apply(.start, to: target, origin, text)
        case .restart(let target): apply(.restart, to: target, origin, text)
        case .signal(let target, let signal, let recipients):
            guard let targets = resolve(target, origin, text) else { return }
            for child in targets { send(signal, to: recipients, of: child, origin, text) }
        case .status:
            for child in children { child.lookForOutsideChange(at: now) }
            var lines = ""
            for child in children {
                statusJSON(child).write(into: &lines)
                lines += "\n"
            }
            answer(lines, to: origin)
        case .wait(let state, let target, let timeout):
            guard let targets = resolve(target, origin, text) else { return }
            for child in targets { child.lookForOutsideChange(at: now) }
            let line = if case .stdin(let line) = origin { line } else { 0 }
            setHold(.wait(state: state, target: target, deadline: now + timeout, line: line, text: text), for: origin)
        case .sleep(let duration):
            setHold(.sleep(until: now + duration), for: origin)
        case .logLevel(let level):
            logger.logLevel = Logger.Level(rawValue: level) ?? logger.logLevel
            logger.notice("log level: \(level)")
        case .version:
            answer(SuperviseVersion.line + "\n", to: origin)
        }
    }

    /// Feeds `input` to each child the command names, each at the time it is handled: with
    /// many children the last are reached well after the first (a grace must start then). A
    /// child launched for an event or started is spawned at once.
    private func apply(_ input: LifecycleInput, to target: ControlTarget, _ origin: CommandOrigin, _ text: String) {
        guard let targets = resolve(target, origin, text) else { return }
        let launches = input == .start || input == .restart || { if case .event = input { true } else { false } }()
        for child in targets {
            if launches, child.isFinished, runIsEnding {
                let act = if case .event = input { "cannot deliver event" } else { "cannot start" }
                refuse(origin, text, "\(child.name): \(act): every child has exited and the run is "
                    + "ending (--keep-running keeps it up)")
                continue
            }
            if launches, child.isFinished, !child.wrappedUp {
                // Its last run is over: wrapped up before the command starts the next one.
                finishRun(of: child, at: MonotonicClock.now())
            }
            for reason in child.handle(input, at: MonotonicClock.now()) {
                refuse(origin, text, "\(child.name): \(reason)")
            }
            if child.takeRunRequest() { start(child, at: MonotonicClock.now()) }
        }
    }

    /// `signal NAME SIG [main|group|tree]`: to the child's main process, its process group or
    /// its tree, recorded in its timeline.
    private func send(_ signal: Int32, to target: SignalTarget, of child: SupervisedChild, _ origin: CommandOrigin,
                      _ text: String) {
        let name = SignalName.describe(signal)
        guard child.hasProcesses else {
            return refuse(origin, text, "\(child.name): cannot send \(name): it is \(child.state.rawValue), with no process")
        }
        if !forward(signal, to: target, of: child, note: "sent \(name) to its \(target.noun) (signal command)") {
            refuse(origin, text, "\(child.name): cannot send \(name) to its \(target.noun): its main process has "
                + "exited (the target tree reaches what is left)")
        }
    }

    /// The children a command names, or `nil` after rejecting it: why none could be.
    private func resolve(_ target: ControlTarget, _ origin: CommandOrigin, _ text: String) -> [SupervisedChild]? {
        switch target {
        case .all:
            return children
        case .unnamed:
            if children.count == 1 { return children }
            reject(origin, text, "name a child or 'all' (children: \(children.map(\.name).joined(separator: ", ")))")
            return nil
        case .named(let name):
            if let child = children.first(where: { $0.name == name }) { return [child] }
            reject(origin, text, echo(for: origin).unknownChild(name, among: children.map(\.name)))
            return nil
        }
    }

    /// What a command answers: on stdout for stdin, to the client for the socket.
    private func answer(_ text: String, to origin: CommandOrigin) {
        switch origin {
        case .stdin: Descriptor.writeAll(Descriptor.standardOutput, text)
        case .client(let client): control?.send(text, to: client)
        }
    }

    private func setHold(_ hold: CommandHold, for origin: CommandOrigin) {
        switch origin {
        case .stdin: commands?.hold = hold
        case .client(let client): client.hold = hold
        }
    }

    private func refuse(_ origin: CommandOrigin, _ text: String, _ reason: String) {
        switch origin {
        case .stdin(let line):
            logger.error("\(echo(for: origin).refused(line: line, text, reason))")
        case .client(let client):
            logger.notice("control socket: '\(ControlText.excerpt(text))': \(reason)")
            client.refusals.append(reason)
        }
    }

    /// Whether the log may quote the command: a control client's always, stdin's unless typed at
    /// a terminal (it may be a password meant for a child).
    private func echo(for origin: CommandOrigin) -> CommandEcho {
        if case .stdin = origin { commands?.echo ?? .withheld } else { .quoted }
    }

    /// Refuses a command that can't be run as written (not one a child's state refuses).
    private func reject(_ origin: CommandOrigin, _ text: String, _ reason: String) {
        refuse(origin, text, reason)
        if case .stdin(let line) = origin { endRunIfScripted(line, text, reason) }
    }

    /// After a command that can't be run as written, when commands come from a pipe or file:
    /// no further command runs, every child is terminated gracefully (as `terminate all`), and
    /// the exit status becomes 123. On a terminal, or with `--keep-going`, nothing happens.
    private func endRunIfScripted(_ line: Int, _ text: String, _ reason: String) {
        guard let commands, commands.mistakes == .endTheRun else { return }
        commands.stop()
        outcome.scriptStepFailed = true
        failedSteps.append(FailedStep(kind: .command, line: line, text: text, reason: reason, children: []))
        logger.notice("stdin line \(line) failed and stdin is not a terminal: terminating every child (--keep-going goes on)")
        for child in children { child.handle(.terminate(escalate: false), at: MonotonicClock.now()) }
    }

    /// Ends a stdin `sleep` whose time is up, or a `wait` that is satisfied, timed out or can't
    /// be satisfied; a failed one fails the run (123).
    private func releaseHold(at now: Instant) {
        guard let commands, let hold = commands.hold else { return }
        let waited = judgedChildren(for: hold, at: now)
        switch hold.verdict(over: waited, at: now, launchable: commandsCanLaunch) {
        case .holds:
            break
        case .released:
            commands.hold = nil
        case .failed(let reason):
            commands.hold = nil
            outcome.scriptStepFailed = true
            if case .wait(_, _, _, let line, let text) = hold {
                failedSteps.append(FailedStep(kind: .wait, line: line, text: text, reason: reason,
                                              children: hold.culprits(among: waited)))
                refuse(.stdin(line: line), text, reason)
            }
        }
    }

    /// Answers the control clients whose hold is over: `ok`, or for a failed `wait` the
    /// client's failure alone (the run's exit status is not changed).
    private func releaseClientHolds(at now: Instant) {
        guard let control else { return }
        for client in control.holdingClients {
            guard let hold = client.hold else { continue }
            switch hold.verdict(over: judgedChildren(for: hold, at: now), at: now, launchable: commandsCanLaunch) {
            case .holds: break
            case .released: control.finish(client, .ok)
            case .failed(let reason): control.finish(client, .error(.waitFailed, reason))
            }
        }
    }

    /// The children as `hold` sees them at `now`; a wait whose time is up looks first, as
    /// cgroup v1 tells nothing.
    private func judgedChildren(for hold: CommandHold, at now: Instant) -> [CommandHold.Child] {
        if hold.deadline <= now {
            for child in children where hold.isWaiting(for: child.name) { child.lookForOutsideChange(at: now) }
        }
        return children.map { CommandHold.Child(name: $0.name, state: $0.state, isDone: $0.isDone,
                                                  toldToTerminate: $0.status.toldToTerminate) }
    }

    /// Whether another source of commands can still launch a child that is done while a
    /// `wait` holds: the control socket is open and the run is not ending.
    private var commandsCanLaunch: Bool { control != nil && !runIsEnding }

    func statusJSON(_ child: SupervisedChild) -> JSONValue {
        .object([
            ("name", .string(child.name)),
            ("pid", child.pid > 0 ? .int(Int64(child.pid)) : .null),
            ("state", .string(child.state.rawValue)),
            ("stopped", .string(child.lifecycle.stoppedBy.map(SignalName.describe))),
            ("aware", .bool(child.lifecycle.aware)),
            ("freezer", .string(child.unit.kind.rawValue)),
            ("cgroup", .string(child.unit.cgroupPath)),
            ("tasks", .array(child.lifecycle.openTasks.map {
                .object([("id", .string($0.id.rawValue)), ("name", .string($0.name))])
            })),
        ])
    }
}
