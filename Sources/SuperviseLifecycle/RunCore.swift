import SuperviseProtocol

/// The rules of the run as a whole, beside each child's ``ChildCore``: when the run ends and what
/// keeps it up, and every fact behind the supervisor's exit status (``RunOutcome``).
///
/// Feed it every ``RunInput`` with the children as they are (``RunChild``); carry out the
/// ``RunAction``s it returns, in order. It reads no clock and makes no call: the shell asks, and
/// does what it is told.
public struct RunCore: Sendable {
    /// What the user chose for the run as a whole.
    public struct Settings: Equatable, Sendable {
        /// `--keep-running`: every child keeps the run up while commands can still come.
        public var keepRunning = false
        /// The exit status of a run with a child killed for a violation (`--violation-status`).
        public var violationStatus: Int32 = 124
        /// The exit status when no freezer could be had (125, or 2 for a config's choice).
        public var freezersUnavailableStatus: Int32 = 125
        /// `--suspended-memory`: the most memory the suspended children may hold together, in
        /// bytes; `nil`, no budget.
        public var suspendedMemory: UInt64?

        public init(keepRunning: Bool = false, violationStatus: Int32 = 124, freezersUnavailableStatus: Int32 = 125,
                    suspendedMemory: UInt64? = nil) {
            self.keepRunning = keepRunning
            self.violationStatus = violationStatus
            self.freezersUnavailableStatus = freezersUnavailableStatus
            self.suspendedMemory = suspendedMemory
        }
    }

    public let settings: Settings
    /// The facts the exit status is decided from, by ``RunOutcome``'s precedence.
    public private(set) var outcome = RunOutcome()
    /// No freezer could be had: nothing was launched.
    private var freezersUnavailable = false
    /// A scripted mistake stopped stdin's commands.
    private var commandsStopped = false
    /// How many terminating signals came: the second kills.
    var terminationSignals = 0
    /// The children the last stop of the job stopped, for `fg` to continue.
    var stoppedWithJob: [Int] = []
    /// A hint on giving a child the terminal was logged: one a run is enough.
    var gaveHint = false

    public init(settings: Settings) {
        self.settings = settings
    }

    /// The supervisor's exit status, as things stand.
    public var exitStatus: Int32 {
        freezersUnavailable ? settings.freezersUnavailableStatus : outcome.exitStatus(violationStatus: settings.violationStatus)
    }

    /// The exit status a report says if it is the one result file that could not be written:
    /// the supervisor's failure (125), unless a status already comes before it.
    public var exitStatusIfAResultFails: Int32 {
        var failed = self
        failed.outcome.supervisorFailed = true
        return failed.exitStatus
    }

    /// Decides `input`: the actions, to carry out in order.
    public mutating func handle(_ input: RunInput) -> [RunAction] {
        switch input {
        case .signal(let signal, let name, let order, let routine, let children):
            return received(signal, name, order, routine: routine, children)
        case .freezersUnavailable(let message):
            freezersUnavailable = true
            return [.log(.error, message)]
        case .unitFailed(let name, let message):
            outcome.supervisorFailed = true
            return [.log(.error, "\(name): \(message)")]
        case .spawnFailed(let child, let name, let commandStatus?, let message):
            // The command can't be run (127, 126): the child's own failure.
            outcome.count(commandStatus, of: name)
            return [.log(.error, message), .feed(child: child, .spawnFailed(status: commandStatus))]
        case .spawnFailed(let child, _, nil, let message):
            // The supervisor could not start it (fork, a pipe, a process or descriptor limit).
            outcome.supervisorFailed = true
            return [.log(.error, "supervise failed: \(message)"), .feed(child: child, .spawnFailed(status: 125))]
        case .childExited(let name, let exit):
            outcome.count(exit.countedStatus, of: name)
            return []
        case .commandRejected(let text, let rejection, let source):
            return rejected(text, rejection, from: source)
        case .waitFailed(let text, let reason, let children, .stdin(let line, _)):
            // Stdin is the run's script: a step of it that failed fails the run.
            outcome.scriptStepFailed = true
            return [.stepFailed(.wait, line: line, text: text, reason: reason, children: children), .refuse(reason)]
        case .waitFailed(_, let reason, _, .client):
            // A control client's wait is its own: it fails that client, not the run.
            return [.failClientWait(reason: reason)]
        case .joined(let place, let child):
            return joined(child, at: place)
        case .hint(let text, let place):
            return hint(text, for: place)
        case .resultFileFailed:
            outcome.supervisorFailed = true
            return []
        case .ended(let children):
            outcome.violationKill = children.contains(where: \.killedForViolation)
            outcome.failedTask = children.lazy.compactMap { child in
                child.failedTask.map { RunOutcome.FailedTask(child: child.name, task: $0.rawValue) }
            }.first
            return []
        case .jobStopping(let signal, let name, let cause, let children):
            return jobStopping(signal, name, cause: cause, children)
        case .jobContinued:
            return jobContinued()
        case .weighSuspendedMemory(let children):
            return reclaimOverBudget(children)
        case .reaped(let children):
            return reaped(children)
        }
    }

    /// After a stdin command that can't be run as written, when commands come from a pipe or
    /// file (``CommandMistakes/endTheRun``): no further command runs, every child is terminated
    /// gracefully (as `terminate all`), and the exit status becomes 123. On a terminal, or with
    /// `--keep-going`, nothing more than the refusal already logged.
    mutating func commandMistake(_ line: Int, _ text: String, _ reason: String,
                                         _ mistakes: CommandMistakes) -> [RunAction] {
        guard mistakes == .endTheRun, !commandsStopped else { return [] }
        commandsStopped = true
        outcome.scriptStepFailed = true
        return [
            .stopCommands,
            .stepFailed(.command, line: line, text: text, reason: reason, children: []),
            .log(.notice, "stdin line \(line) failed and stdin is not a terminal: terminating every child (--keep-going goes on)"),
            .feedEveryChild(.terminate(escalate: false)),
        ]
    }

    // MARK: - The end of the run

    /// The run is ending: no child has a process left or a restart pending, and none can be
    /// launched again (docs/cli.md, "End of input, and the end of the run").
    public func isEnding(_ children: [RunChild], _ sources: CommandSources) -> Bool {
        children.allSatisfy { $0.status.isFinished && !$0.status.restartPending && !keepsRunUp($0, sources) }
    }

    /// The run is over: it is ending, and every run is wrapped up.
    public func isOver(_ children: [RunChild], _ sources: CommandSources) -> Bool {
        isEnding(children, sources) && children.allSatisfy(\.wrappedUp)
    }

    /// An event can still launch `child`, and the run stays up for it: a `not-running` child,
    /// or any child with `--keep-running`, while commands can still come (stdin has not ended,
    /// or a control socket is open) and it was not told to terminate.
    public func keepsRunUp(_ child: RunChild, _ sources: CommandSources) -> Bool {
        guard sources.mayCome, !child.status.toldToTerminate else { return false }
        return settings.keepRunning || child.status.state == .notRunning
    }

    /// Whether `child` may run again, for a service manager's status: a restart is pending, or
    /// it keeps the run up.
    public func mayRunAgain(_ child: RunChild, _ sources: CommandSources) -> Bool {
        child.status.restartPending || keepsRunUp(child, sources)
    }

    /// At the top of each turn of the loop: every finished run not yet wrapped up is closed, and
    /// a run its core then asks for (a `restart` waiting for the last run to end) is started.
    public func finishedRuns(_ children: [RunChild]) -> [RunAction] {
        children.indices.filter { children[$0].status.isFinished && !children[$0].wrappedUp }
            .flatMap { [RunAction.wrapUp(child: $0), .startRequestedRun(child: $0)] }
    }

    /// Whether a command from another source can still launch a child that is done while a
    /// `wait` holds: the control socket is open and the run is not ending.
    public func commandsCanLaunch(_ children: [RunChild], _ sources: CommandSources) -> Bool {
        sources.socketOpen && !isEnding(children, sources)
    }
}

/// Where commands can still come from.
public struct CommandSources: Equatable, Sendable {
    /// The control socket is open (`--socket`).
    public var socketOpen: Bool
    /// Stdin has not ended nor been stopped, or lines read before its end are still to run.
    public var stdinMayRunMore: Bool

    public init(socketOpen: Bool, stdinMayRunMore: Bool) {
        self.socketOpen = socketOpen
        self.stdinMayRunMore = stdinMayRunMore
    }

    /// A command may still come.
    public var mayCome: Bool { socketOpen || stdinMayRunMore }
}

/// A child as the run's rules see it: its core's status and what the shell did with its run.
public struct RunChild: Equatable, Sendable {
    public var name: String
    public var status: ChildStatus
    /// The run's pipes are closed and its output flushed.
    public var wrappedUp: Bool
    /// The run's main process, once spawned (0 before).
    public var pid: Int32
    /// The main process is not reaped yet: its pid and the group it leads still name it.
    public var mainProcessAlive: Bool
    /// Some run of it was killed for a violation (``ChildCore/killedForViolation``).
    public var killedForViolation: Bool
    /// When it was last verified frozen, while it is `suspended`.
    public var suspendedSince: Instant?
    /// Its `priority`: lower is reclaimed first between children suspended at the same instant.
    public var priority: Int
    /// Its resident memory when its freeze was last verified, in bytes.
    public var frozenMemory: UInt64
    /// The first scheduled task of any run of it that completed with `failure` (``ChildCore/failedTask``).
    public var failedTask: TaskID?
    /// Why it was reclaimed, while it has been `not-running` since (what `status` says).
    public var reclaimedBecause: String?

    public init(name: String, status: ChildStatus, wrappedUp: Bool, pid: Int32, mainProcessAlive: Bool,
                killedForViolation: Bool, suspendedSince: Instant? = nil, priority: Int = 0, frozenMemory: UInt64 = 0,
                failedTask: TaskID? = nil, reclaimedBecause: String? = nil) {
        self.name = name
        self.status = status
        self.wrappedUp = wrappedUp
        self.pid = pid
        self.mainProcessAlive = mainProcessAlive
        self.killedForViolation = killedForViolation
        self.suspendedSince = suspendedSince
        self.priority = priority
        self.frozenMemory = frozenMemory
        self.failedTask = failedTask
        self.reclaimedBecause = reclaimedBecause
    }

    /// The child `name` whose rules are `core`'s; `reclaimReason`, why it was last reclaimed.
    public init(name: String, core: ChildCore, wrappedUp: Bool, pid: Int32, mainProcessAlive: Bool,
                priority: Int = 0, frozenMemory: UInt64 = 0, reclaimReason: String? = nil) {
        let status = core.status  // computed: its deadlines are worked out on each read
        let suspendedSince = status.state == .suspended ? core.lifecycle.stateEnteredAt : nil
        let reclaimed = status.state == .notRunning && core.lifecycle.exit?.by == .reclaim
        self.init(name: name, status: status, wrappedUp: wrappedUp, pid: pid, mainProcessAlive: mainProcessAlive,
                  killedForViolation: core.killedForViolation, suspendedSince: suspendedSince, priority: priority,
                  frozenMemory: frozenMemory, failedTask: core.failedTask, reclaimedBecause: reclaimed ? reclaimReason : nil)
    }

    /// A run was spawned and something of its tree may still be running.
    public var hasProcesses: Bool { pid > 0 && !status.isFinished }

    /// Nothing more will happen to it: exited, its tree gone, its run wrapped up, no restart pending.
    public var isDone: Bool { status.isFinished && wrappedUp && !status.restartPending }
}
