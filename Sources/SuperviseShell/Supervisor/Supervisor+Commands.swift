import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging

extension Supervisor {
    /// Runs the commands control clients sent, then buffered stdin commands until one holds the
    /// reader or none is left, after ending the holds of control clients that are over.
    ///
    /// Called only between inputs, once the last one's actions are all carried out (never from
    /// inside a child's decision): a command run while a decision's `freeze` was still to come
    /// once left a child frozen while its state read `active`.
    ///
    /// Each command is taken at the time it runs: the one before may have taken a while.
    func runCommands() {
        // A freeze verified by the last input counts before any command can thaw the child.
        reclaimOverBudget()
        for (client, text) in control?.takeCommands() ?? [] { runClientCommand(client, text) }
        releaseClientHolds(at: MonotonicClock.now())
        guard let commands else { return }
        releaseHold(at: MonotonicClock.now())
        while !runIsOver, let line = commands.nextLine() {
            if line.isTooLong {
                rejected(line.text + "…", .unrunnable(reason: "ignored: the line is over \(CommandReader.maxLineLength) bytes; "
                    + "keep a command under \(CommandReader.maxLineLength / 1024) KiB"), .stdin(line: line.number))
            } else {
                execute(line.text, from: .stdin(line: line.number), at: MonotonicClock.now())
            }
            releaseHold(at: MonotonicClock.now())
        }
    }

    /// Runs the command a control client sent, between inputs as a stdin command, and answers
    /// it unless a `wait` or `sleep` holds the answer.
    private func runClientCommand(_ client: ControlClient, _ text: String) {
        reclaimOverBudget()
        logger.debug("control socket (uid \(client.connection.peer.uid)): \(ControlText.excerpt(text))")
        execute(text, from: .client(client), at: MonotonicClock.now())
        if client.hold == nil {
            control?.finish(client, client.outcome)
        } else {
            releaseClientHolds(at: MonotonicClock.now())
        }
    }

    /// Runs the command `text` from `origin`, once every child it names was looked at
    /// (``waitsForLooks(_:_:_:at:)``); `looked`: it waited for those looks, which are over, and
    /// none is begun again (with many children, those looked at in an earlier turn would begin
    /// new looks that hold it again, and again).
    private func execute(_ text: String, from origin: CommandOrigin, at now: Instant, looked: Bool = false) {
        let command: ControlCommand
        do {
            guard let parsed = try ControlParser.parse(text) else { return rejected(text, .blank, origin) }
            command = parsed
        } catch {
            return rejected(text, .unparsable(message: error.message, problem: error.problem), origin)
        }
        if !looked, waitsForLooks(command, text, origin, at: now) { return }
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
            guard let places = resolve(target, origin, text) else { return }
            for place in places {
                let decision = core.signalCommand(signal, name: SignalName.describe(signal), to: recipients,
                                                  of: runChild(children[place]), at: place)
                perform(decision, for: origin, text: text)
            }
        case .status:
            var lines = ""
            for child in children {
                statusJSON(child).write(into: &lines)
                lines += "\n"
            }
            answer(lines, to: origin)
        case .wait(let state, let target, let timeout):
            guard let places = resolve(target, origin, text) else { return }
            for place in places { children[place].lookForOutsideChange(at: now) }
            let line = if case .stdin(let line) = origin { line } else { 0 }
            setHold(.wait(state: state, target: target, deadline: now + timeout, line: line, text: text), for: origin)
        case .sleep(let duration):
            setHold(.sleep(until: now + duration), for: origin)
        case .logLevel(let level):
            logger.logLevel = Logger.Level(rawValue: level) ?? logger.logLevel
            logger.notice("log level: \(level)")
        case .version:
            answer(SuperviseVersion.line + "\n", to: origin)
        case .schedules:
            answer(schedulesAnswer(at: now), to: origin)
        case .runTask(let target, let id):
            apply(.runTask(id), to: target, origin, text)
        }
    }

    /// Looks at the children `command` names for what someone else did to them while suspended
    /// (``SupervisedChild/lookForOutsideChange(at:)``). While such a look goes on at the next
    /// turns (a large sigstop tree, in slices), the command waits for it (``CommandHold/look``)
    /// and runs once every look is done, the loop taking other inputs meanwhile: true then.
    private func waitsForLooks(_ command: ControlCommand, _ text: String, _ origin: CommandOrigin, at now: Instant) -> Bool {
        guard let target = command.looksAt,
              case .children(let places) = RunCore.places(target, among: children.map(\.name)) else { return false }
        for place in places { children[place].lookForOutsideChange(at: now) }
        let line = if case .stdin(let line) = origin { line } else { 0 }
        guard let hold = CommandHold.look(before: text, naming: target, line: line,
                                          over: runChildren.map(CommandHold.Child.init)) else { return false }
        setHold(hold, for: origin)
        return true
    }

    /// Hands `input` to each child the command names, as the run core decides
    /// (``RunCore/command(_:to:at:runIsEnding:)``), each at the time it is reached: with many
    /// children the last are reached well after the first (a grace must start then). A child
    /// launched for an event or started is spawned at once.
    private func apply(_ input: LifecycleInput, to target: ControlTarget, _ origin: CommandOrigin, _ text: String) {
        guard let places = resolve(target, origin, text) else { return }
        for place in places {
            let decision = core.command(input, to: runChild(children[place]), at: place, runIsEnding: runIsEnding)
            perform(decision, at: MonotonicClock.now(), for: origin, text: text)
        }
    }

    /// The places of the children a command names (``RunCore/places(_:among:)``), or `nil` after
    /// rejecting it for the reason the core gives.
    private func resolve(_ target: ControlTarget, _ origin: CommandOrigin, _ text: String) -> [Int]? {
        let names = children.map(\.name)
        switch RunCore.places(target, among: names) {
        case .children(let places):
            return places
        case .refused(let reason):
            rejected(text, .unrunnable(reason: reason), origin)
        case .noChildNamed(let name):
            rejected(text, .unrunnable(reason: echo(for: origin).unknownChild(name, among: names)), origin)
        }
        return nil
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

    /// `origin` as the run's rules see it: a stdin line's mistakes do what the reader says.
    func source(of origin: CommandOrigin) -> CommandSource {
        switch origin {
        case .stdin(let line): .stdin(line: line, mistakes: commands?.mistakes ?? .logged)
        case .client: .client
        }
    }

    /// Whether the log may quote the command: a control client's always, stdin's unless typed at
    /// a terminal (it may be a password meant for a child).
    private func echo(for origin: CommandOrigin) -> CommandEcho {
        if case .stdin = origin { stdinEcho } else { .quoted }
    }

    /// Whether the log may quote a stdin command: not one typed at a terminal.
    var stdinEcho: CommandEcho { commands?.echo ?? .withheld }

    /// Rejects the line `text` from `origin`, which is not run at all: where that goes and
    /// what follows is the core's (``RunInput/commandRejected(text:_:from:)``).
    private func rejected(_ text: String, _ rejection: CommandRejection, _ origin: CommandOrigin) {
        perform(core.handle(.commandRejected(text: text, rejection, from: source(of: origin))), for: origin, text: text)
    }

    /// Ends a stdin `sleep` whose time is up, or a `wait` that is satisfied, timed out or can't
    /// be satisfied; what a failed one does is the core's. A command that waited for a look or a
    /// thaw runs, and the hold it sets (a `wait`) is judged at once: nothing else may come to
    /// wake the loop before its timeout.
    private func releaseHold(at now: Instant) {
        while let commands, let hold = commands.hold {
            let waited = judgedChildren(for: hold, at: now)
            switch hold.verdict(over: waited, at: now, launchable: commandsCanLaunch) {
            case .holds:
                return
            case .released:
                commands.hold = nil
                if case .look(_, let line, let text) = hold { execute(text, from: .stdin(line: line), at: now, looked: true) }
            case .failed(let reason):
                commands.hold = nil
                waitFailed(hold, reason, over: waited, of: nil)
            }
        }
    }

    /// Answers the control clients whose hold is over: `ok`, or what the core makes of a failed
    /// `wait`. A command that waited for a look or a thaw runs, and the hold it sets is judged at once.
    private func releaseClientHolds(at now: Instant) {
        guard let control else { return }
        for client in control.holdingClients {
            judging: while let hold = client.hold {
                let waited = judgedChildren(for: hold, at: now)
                switch hold.verdict(over: waited, at: now, launchable: commandsCanLaunch) {
                case .holds:
                    break judging
                case .released:
                    guard case .look(_, _, let text) = hold else {
                        control.finish(client, .ok)
                        break judging
                    }
                    client.hold = nil
                    execute(text, from: .client(client), at: now, looked: true)
                    if client.hold == nil { control.finish(client, client.outcome) }
                case .failed(let reason):
                    waitFailed(hold, reason, over: waited, of: client)
                    break judging
                }
            }
        }
    }

    /// The `wait` `hold` of `client` (nil: of stdin) failed for `reason`: the run core says what
    /// follows (``RunInput/waitFailed(text:reason:children:from:)``).
    private func waitFailed(_ hold: CommandHold, _ reason: String, over waited: [CommandHold.Child], of client: ControlClient?) {
        guard case .wait(_, _, _, let line, let text) = hold else { return }
        let origin = client.map(CommandOrigin.client) ?? .stdin(line: line)
        let input = RunInput.waitFailed(text: text, reason: reason, children: hold.culprits(among: waited), from: source(of: origin))
        perform(core.handle(input), for: origin, text: text)
    }

    /// The children as `hold` sees them at `now`; a wait whose time is up looks first, as
    /// cgroup v1 tells nothing.
    private func judgedChildren(for hold: CommandHold, at now: Instant) -> [CommandHold.Child] {
        if let deadline = hold.deadline, deadline <= now {
            for child in children where hold.isWaiting(for: child.name) { child.lookForOutsideChange(at: now) }
        }
        return runChildren.map(CommandHold.Child.init)
    }

    /// Whether another source of commands can still launch a child that is done while a
    /// `wait` holds (``RunCore/commandsCanLaunch(_:_:)``).
    private var commandsCanLaunch: Bool { core.commandsCanLaunch(runChildren, commandSources) }

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
            ("memory_warning", .string(child.lifecycle.lastMemoryWarning?.rawValue)),
            ("reclaimed", .string(runChild(child).reclaimedBecause)),
            ("scheduled", .array(child.core.work.pending.keys.map(\.rawValue).sorted().map(JSONValue.string))),
        ])
    }
}
