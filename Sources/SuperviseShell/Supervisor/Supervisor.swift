import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging

/// Runs children through their lifecycles: one event loop over signals, stdin commands,
/// each child's pipes, freezer notifications and timers.
public final class Supervisor {
    let specs: [ChildSpec]
    /// The width of the `NAME | ` prefix on several children's output: the longest name.
    let outputPrefixWidth: Int
    let options: SupervisorOptions
    /// Its level is the handler's, shared by every child's copy: `log-level` sets it here.
    var logger: Logger
    let origin = MonotonicClock.now()
    let loop: EventLoop
    let signals: SignalReceiver
    var children: [SupervisedChild] = []
    var freezers: [FreezerChoice: any Freezer] = [:]
    /// How the freezers were chosen, as logged: the sweep, which was picked, which passed over and why.
    var freezerNotes: [String] = []
    var commands: CommandReader?
    /// The control socket's clients, when `--socket` is given.
    var control: ControlServer?
    /// The run's rules: when it ends, and the facts behind its exit status.
    var core: RunCore
    /// The stdin steps that failed the run: the first and the last ``failedStepLimit``, the rest counted.
    var failedSteps = HeadTailBuffer<FailedStep>(headLimit: Supervisor.failedStepLimit,
                                                 tailLimit: Supervisor.failedStepLimit)
    var openFilesLimit: (soft: UInt64, hard: UInt64)?
    var devNull: Int32 = -1
    var childrenByPID: [Int32: SupervisedChild] = [:]
    var watchedNotifications: Set<Int32> = []
    let readBuffer = ReadBuffer()
    /// `$NOTIFY_SOCKET`, when a service manager waits to hear from the supervisor.
    var serviceManager: ServiceManagerSocket?
    var serviceNotifier = ServiceNotifier()
    /// The times the supervisor was not running (``SupervisorGap``): the first and the last kept.
    var supervisorGaps = HeadTailBuffer<SupervisorGap>(headLimit: Supervisor.gapLimit, tailLimit: Supervisor.gapLimit)
    /// Who has the terminal on stdin, and what a stop of the job does (``TerminalJobControl``).
    var jobControl = TerminalJobControl(ownGroup: ControllingTerminal.ownGroup, isPID1: ControllingTerminal.isPID1)
    /// The run said how to give a child the terminal (``ControlHint``): once is enough.
    /// The memory pressure rules, and the kernel's trigger that wakes them (`nil`: not watched).
    var memoryPressure: MemoryPressure
    var pressureWatch = PressureWatch.off
    /// The conditions of scheduled tasks, when a source tells them (else every one holds).
    let conditionFeed: ConditionFeed?

    /// Prepares the loop and the signals; nothing is launched yet. `controlSocket` is served
    /// once the run starts, and removed when it ends. `conditions` tells which conditions of
    /// scheduled tasks hold; without it every one does.
    public init(children: [ChildSpec], options: SupervisorOptions, logger: Logger,
                controlSocket: ControlListener? = nil, conditions: (any ConditionSource)? = nil) throws(SupervisorError) {
        self.specs = children
        self.outputPrefixWidth = OutputPrefixer.width(for: children.map(\.name))
        self.options = options
        self.logger = logger
        self.core = RunCore(settings: RunCore.Settings(options))
        self.memoryPressure = MemoryPressure(settings: options.memoryPressure)
        self.signals = try SignalReceiver(taking: options.signalTable.signals + [SignalNumber.childStatusChanged])
        self.loop = try EventLoop()
        if let controlSocket {
            control = ControlServer(listener: controlSocket, loop: loop)
        }
        conditionFeed = conditions.map(ConditionFeed.init)
    }

    /// Runs until every child has exited; returns the exit status.
    public func run() -> Int32 {
        defer { cleanUp() }
        do {
            try prepareFreezers()
        } catch {
            perform(core.handle(.freezersUnavailable(message: error.message)))
            // Nothing was launched; the report still says how the run ended. (The status stays:
            // 2 comes before 125, and 125 is already the supervisor's failure.)
            _ = writeReport(exitStatus: core.exitStatus, failedStatus: core.exitStatus)
            return core.exitStatus
        }
        openFilesLimit = OpenFilesLimit.raise()
        CurrentProcess.becomeSubreaper()
        if !options.signalTable.leftIgnored.isEmpty {
            let names = options.signalTable.leftIgnored.map(SignalName.describe)
            let list = names.joined(separator: ", "), first = names[0].dropFirst(3)
            logger.info("\(list) ignored when supervise started (nohup, a background job): left ignored, by the children too; --signal \(first)=ACTION takes it")
        }
        loop.afterEachHandler = { [unowned self] in self.runCommands() }
        loop.afterGap = { [unowned self] gap in self.supervisorWasAway(gap) }
        loop.add(signals.fd) { [unowned self] _ in self.handleSignals() }
        if options.control == .stdin {
            devNull = (try? Descriptor.openNullDevice().get()) ?? -1
            let reader = CommandReader(fd: Descriptor.standardInput, keepGoing: options.keepGoing)
            reader.attach(to: loop) { reader.readAvailable() }
            commands = reader
        }
        serviceManager = openServiceManagerSocket()
        watchMemoryPressure()
        for spec in specs { launch(spec) }
        conditionFeed?.source.attach(to: loop) { [unowned self] in self.feedConditions(at: MonotonicClock.now()) }
        feedConditions(at: MonotonicClock.now())
        runLoop()
        closeControl()
        perform(core.handle(.ended(runChildren)))
        // A result file that can't be written is the supervisor's failure (125); the JUnit
        // results go first, so that the report written after them says so.
        if !writeCIResults() { perform(core.handle(.resultFileFailed)) }
        if !writeReport(exitStatus: core.exitStatus, failedStatus: core.exitStatusIfAResultFails) {
            perform(core.handle(.resultFileFailed))
        }
        writeSummary(exitStatus: core.exitStatus)
        return core.exitStatus
    }

    private func runLoop() {
        while true {
            perform(core.finishedRuns(runChildren))
            reclaimOverBudget()
            notifyServiceManager()
            control?.resumeIfPaused()
            if runIsOver {
                // A `wait` still holding fails now (123); no further command runs.
                runCommands()
                break
            }
            if let commands, commands.needsDirectRead {
                commands.readAvailable()
                runCommands()
            }
            // What the moment's actions left to share is done before the next input is taken.
            for freezer in freezers.values { freezer.endMoment() }
            watchConditions(at: MonotonicClock.now())
            loop.wait(until: nextDeadline(), pollOnly: commands?.needsDirectRead ?? false)
            lookAtConditions(at: MonotonicClock.now())
            // Exits the kernel already has are taken before any timer is judged, as a child's
            // requests are: a command that ran long (terminate all, with many children) must not
            // turn children that died of its stop signal into children killed at the grace's end.
            reap()
            for child in children {
                // Each child at the time it is reached: the ones before may have taken a while.
                child.tick(at: MonotonicClock.now())
                if child.takeRunRequest() { start(child, at: MonotonicClock.now()) }
            }
            tickMemoryPressure()
            runCommands()
        }
    }

    private func nextDeadline() -> Instant? {
        var earliest = SuperviseLifecycle.earliest(SuperviseLifecycle.earliest(commands?.holdDeadline, memoryPressure.nextDeadline),
                                                   conditionFeed?.lookAt)
        for client in control?.holdingClients ?? [] {
            guard let deadline = client.hold?.deadline else { continue }
            earliest = min(deadline, earliest ?? deadline)
        }
        for child in children {
            guard let deadline = child.nextDeadline else { continue }
            earliest = min(deadline, earliest ?? deadline)
        }
        return earliest
    }

    /// A run of `child` is over: close its pipes and flush its output; its core decides on a restart.
    func finishRun(of child: SupervisedChild, at now: Instant) {
        child.wrapUp()
        child.handle(.runOver, at: now)
    }

    // MARK: - Freezers

    private func prepareFreezers() throws(SupervisorError) {
        let adoption = OrphanAdoption(adopter: CurrentProcess.id, soleChild: specs.count == 1)
        for choice in specs.map(\.freezer) where freezers[choice] == nil {
            let (freezer, notes) = try FreezerSelection.make(choice, adoption: adoption, cgroupRoot: options.cgroupRoot)
            for note in notes { logger.info("\(note)") }
            freezerNotes += notes
            freezers[choice] = freezer
        }
    }

    // MARK: - Cleaning up

    /// Answers every control client still held (its `wait` or `sleep` outlived the run) and
    /// removes the socket: once.
    private func closeControl() {
        control?.closeAll(holding: .error(.waitFailed, "the run ended while it held"))
        control = nil
    }

    private func cleanUp() {
        closeControl()
        takeTerminalBack()
        for child in children { child.unit.remove() }
        for freezer in freezers.values { freezer.removeAll() }
        if devNull >= 0 { Descriptor.close(devNull) }
        // The run ended when every tree was empty, but a descendant that died has left its
        // cgroup before its parent reaps it: orphans that died of the stop signal are zombies
        // of the supervisor until reaped here.
        Reaper.reapAll(waitingUpTo: .seconds(1))
    }
}
