import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Runs buffered stdin commands until one holds the reader or none is left.
    ///
    /// Called only between inputs, once the last one's actions are all carried out (never from
    /// inside a child's decision): a command run while a decision's `freeze` was still to come
    /// once left a child frozen while its state read `active`.
    ///
    /// Each command is taken at the time it runs: the one before may have taken a while.
    func runCommands() {
        // A freeze verified by the last input counts before any command can thaw the child.
        reclaimOverBudget()
        guard let commands else { return }
        releaseHold(at: MonotonicClock.now())
        while !runIsOver, let line = commands.nextLine() {
            if line.isTooLong {
                reject(line.number, line.text + "…", "ignored: the line is over \(CommandReader.maxLineLength) bytes; "
                    + "keep a command under \(CommandReader.maxLineLength / 1024) KiB")
            } else {
                execute(line.text, line: line.number, at: MonotonicClock.now())
            }
            releaseHold(at: MonotonicClock.now())
        }
    }

    private func execute(_ text: String, line: Int, at now: Instant) {
        let command: ControlCommand
        do {
            guard let parsed = try ControlParser.parse(text) else { return }
            command = parsed
        } catch {
            logger.error("stdin line \(line): \(error.message)")
            return endRunIfScripted(line, text, error.message)
        }
        switch command {
        case .background(let target): apply(.background, to: target, line, text)
        case .foreground(let target): apply(.foreground, to: target, line, text)
        case .terminate(let target):
            apply(.terminate(escalate: false), to: target, line, text)
        case .event(let target, let kind, let eventText):
            apply(.event(kind: kind, text: eventText), to: target, line, text)
        case .status:
            for child in children { child.lookForOutsideChange(at: now) }
            printStatus()
        case .wait(let state, let target, let timeout):
            guard let targets = resolve(target, line, text) else { return }
            for child in targets { child.lookForOutsideChange(at: now) }
            commands?.hold = .wait(state: state, target: target, deadline: now + timeout, line: line, text: text)
        case .sleep(let duration):
            commands?.hold = .sleep(until: now + duration)
        }
    }

    /// Feeds `input` to each child the command names, each at the time it is handled: with
    /// many children the last are reached well after the first (a grace must start then). A
    /// child launched for an event is spawned at once.
    private func apply(_ input: LifecycleInput, to target: ControlTarget, _ line: Int, _ text: String) {
        guard let targets = resolve(target, line, text) else { return }
        for child in targets {
            if case .event = input, child.isFinished, runIsEnding {
                refuse(line, text, "\(child.name): cannot deliver event: every child has exited and the run is "
                    + "ending (--keep-running keeps it up)")
                continue
            }
            if case .event = input, child.isFinished, !child.wrappedUp {
                // Its last run is over: wrapped up before the event starts the next one.
                finishRun(of: child, at: MonotonicClock.now())
            }
            for reason in child.handle(input, at: MonotonicClock.now()) {
                refuse(line, text, "\(child.name): \(reason)")
            }
            if child.takeRunRequest() { start(child, at: MonotonicClock.now()) }
        }
    }

    /// The children a command names, or `nil` after rejecting it: why none could be.
    private func resolve(_ target: ControlTarget, _ line: Int, _ text: String) -> [SupervisedChild]? {
        switch target {
        case .all:
            return children
        case .unnamed:
            if children.count == 1 { return children }
            reject(line, text, "name a child or 'all' (children: \(children.map(\.name).joined(separator: ", ")))")
            return nil
        case .named(let name):
            if let child = children.first(where: { $0.name == name }) { return [child] }
            reject(line, text, "no child named '\(ControlText.excerpt(name))' (children: \(children.map(\.name).joined(separator: ", ")))")
            return nil
        }
    }

    private func refuse(_ line: Int, _ text: String, _ reason: String) {
        logger.error("stdin line \(line): '\(ControlText.excerpt(text))': \(reason)")
    }

    /// Refuses a command that can't be run as written (not one a child's state refuses).
    private func reject(_ line: Int, _ text: String, _ reason: String) {
        refuse(line, text, reason)
        endRunIfScripted(line, text, reason)
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

    /// Ends a `sleep` whose time is up, or a `wait` that is satisfied, timed out or can't be satisfied.
    private func releaseHold(at now: Instant) {
        guard let commands, let hold = commands.hold else { return }
        // A wait looks when it starts and when its time is up: cgroup v1 tells nothing.
        if hold.deadline <= now {
            for child in children where hold.isWaiting(for: child.name) { child.lookForOutsideChange(at: now) }
        }
        let waited = children.map { CommandHold.Child(name: $0.name, state: $0.state, isDone: $0.isDone) }
        switch hold.verdict(over: waited, at: now) {
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
                refuse(line, text, reason)
            }
        }
    }

    /// One JSON line per child on stdout.
    private func printStatus() {
        var out = ""
        for child in children {
            statusJSON(child).write(into: &out)
            out += "\n"
        }
        Descriptor.writeAll(Descriptor.standardOutput, out)
    }

    func statusJSON(_ child: SupervisedChild) -> JSONValue {
        .object([
            ("name", .string(child.name)),
            ("pid", child.pid > 0 ? .int(Int64(child.pid)) : .null),
            ("state", .string(child.state.rawValue)),
            ("aware", .bool(child.lifecycle.aware)),
            ("freezer", .string(child.unit.kind.rawValue)),
            ("cgroup", .string(child.unit.cgroupPath)),
            ("tasks", .array(child.lifecycle.openTasks.map {
                .object([("id", .string($0.id.rawValue)), ("name", .string($0.name))])
            })),
        ])
    }
}
