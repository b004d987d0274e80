import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging

/// The run's rules are ``RunCore``'s: the supervisor hands it what happened and the children as
/// they are, and carries out the actions it returns, in order, deciding nothing of its own.
extension Supervisor {
    /// Where commands can still come from.
    var commandSources: CommandSources {
        CommandSources(socketOpen: control != nil, stdinMayRunMore: commands?.mayRunMore == true)
    }

    /// `child` as the run's rules see it; its main process is alive until reaped (reaping takes
    /// it out of `childrenByPID`).
    func runChild(_ child: SupervisedChild) -> RunChild {
        RunChild(name: child.name, core: child.core, wrappedUp: child.wrappedUp, pid: child.pid,
                 mainProcessAlive: childrenByPID[child.pid] === child, priority: child.spec.priority,
                 frozenMemory: child.frozenMemory, reclaimReason: child.reclaimReason)
    }

    /// Every child as the run's rules see it, in the run's order.
    var runChildren: [RunChild] { children.map(runChild) }

    /// The run is ending (``RunCore/isEnding(_:_:)``).
    var runIsEnding: Bool { core.isEnding(runChildren, commandSources) }

    /// The run is over (``RunCore/isOver(_:_:)``).
    var runIsOver: Bool { core.isOver(runChildren, commandSources) }

    /// Carries out the run core's actions in order; a child's input is decided at `now`, and a
    /// refusal goes where the core routes it (``RunCore/refusal(_:of:from:)``) from the command
    /// being run (`origin`, its `text`).
    func perform(_ actions: [RunAction], at now: Instant = MonotonicClock.now(), for origin: CommandOrigin? = nil,
                 text: String = "") {
        for action in actions {
            switch action {
            case .log(let level, let line):
                logger.log(level: level.loggerLevel, "\(line)")
            case .feed(let place, let input):
                let child = children[place]
                for reason in child.handle(input, at: now) {
                    let refusal = RunCore.refusal("\(child.name): \(reason)", of: text, from: origin.map(source(of:)))
                    perform(refusal, for: origin, text: text)
                }
                if child.takeRunRequest() { start(child, at: now) }
            case .wrapUp(let place):
                finishRun(of: children[place], at: now)
            case .startRequestedRun(let place):
                if children[place].takeRunRequest() { start(children[place], at: now) }
            case .startFirstRun(let place):
                start(children[place], at: now)
            case .feedEveryChild(let input):
                for child in children { child.handle(input, at: MonotonicClock.now()) }
            case .send(let signal, let recipients, let place, let note):
                children[place].record(.note, note, at: now)
                children[place].unit.send(signal, to: recipients)
            case .note(let place, let text):
                children[place].record(.note, text, at: now)
            case .checkTreeEmpty(let place):
                children[place].checkTreeEmpty(at: now)
            case .childLog(let place, let level, let line):
                children[place].logger.log(level: level.loggerLevel, "\(line)")
            case .reclaim(let place, let reason):
                reclaim(children[place], reason: reason, at: now)
            case .stopJob(let signal):
                stopJob(onSignal: signal)
            case .stopCommands:
                commands?.stop()
            case .stepFailed(let kind, let line, let text, let reason, let culprits):
                failedSteps.append(FailedStep(kind: kind, line: line, text: text, reason: reason, children: culprits))
            case .refuse(let reason):
                perform(RunCore.refusal(reason, of: text, from: origin.map(source(of:))), for: origin, text: text)
            case .refuseOnStdin(let line, let quoted, let reason):
                logger.error("\(stdinEcho.refused(line: line, quoted, reason))")
            case .ignoreOnStdin(let line, let message, let problem):
                logger.error("\(stdinEcho.ignored(line: line, message: message, problem: problem))")
            case .refuseToClient(let quoted, let reason):
                guard case .client(let client) = origin else { continue }
                logger.notice("control socket: '\(ControlText.excerpt(quoted))': \(reason)")
                client.refusals.append(reason)
            case .usageErrorToClient(let message):
                guard case .client(let client) = origin else { continue }
                client.usageError = message
            case .failClientWait(let reason):
                guard case .client(let client) = origin else { continue }
                control?.finish(client, .error(.waitFailed, reason))
            }
        }
    }
}

extension RunLogLevel {
    /// The logger's level of the same name.
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
