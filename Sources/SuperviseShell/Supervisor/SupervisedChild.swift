import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging
import SuperviseProtocol
#if canImport(Glibc)
import Glibc
#endif

/// One running child: its lifecycle core, its process, pipes and freezer unit, and its record.
final class SupervisedChild {
    let spec: ChildSpec
    private(set) var lifecycle: ChildLifecycle
    /// What the loop asks of the lifecycle on every turn, refreshed after each change by
    /// ``lifecycleChanged()``: reading it from the lifecycle would copy the whole struct, for
    /// every child. (A `didSet` would copy it on every request instead.)
    private(set) var state: ChildState = .launching
    private(set) var isFinished = false
    private var lifecycleDeadline: Instant?
    let unit: any FreezerUnit
    private(set) var pid: Int32 = 0
    private(set) var timeline: Timeline
    /// A snapshot at each verified freeze: the first and the last ``snapshotLimit``.
    private(set) var snapshots = HeadTailBuffer<(milliseconds: Double, usage: ResourceUsage)>(
        headLimit: SupervisedChild.snapshotLimit, tailLimit: SupervisedChild.snapshotLimit)
    /// How many snapshots are kept at each end.
    static let snapshotLimit = 1_000
    /// The status to report when exec failed (127 or 126) and no process ever ran.
    private(set) var spawnFailure: SupervisorError?

    var writer: EventWriter?
    var reader: RequestReader?
    /// Prefixes this child's output (several children only).
    var output: OutputForwarder?
    /// The lifecycles of earlier runs, when the child was restarted.
    private(set) var pastRuns: [ChildLifecycle] = []
    /// When the next run starts (a restart is pending).
    var restartAt: Instant?
    var backoff: RestartBackoff
    private(set) var runStartedAt: Instant
    /// The run's pipes are closed and its output flushed.
    private(set) var wrappedUp = false
    /// `error` events dropped by the runs already wrapped up (the child did not read them).
    private var errorsDroppedBefore = 0

    /// `error` events dropped because the child did not read its events, over every run.
    var errorsDropped: Int { errorsDroppedBefore + (writer?.errorsDropped ?? 0) }
    let logger: Logger
    let loop: EventLoop
    let origin: Instant

    /// When the freezer must be asked again whether the child is frozen (back-off, for
    /// backends that don't notify), and the step to use next.
    var freezeRecheckAt: Instant?
    var freezeRecheckStep: Duration = .milliseconds(1)
    var freezeRequestedAt: Instant?

    /// Inputs raised while a decision's actions are carried out (a freeze verified at once),
    /// decided once those actions are all done: nothing re-enters ``perform(_:at:)``.
    private var pendingInputs: [(input: LifecycleInput, at: Instant)] = []
    private var deciding = false

    /// Called when a violation is judged.
    var onViolation: (SupervisedChild, Violation) -> Void = { _, _ in }

    init(spec: ChildSpec, unit: any FreezerUnit, loop: EventLoop, origin: Instant, logger: Logger) {
        defer { lifecycleChanged() }
        self.spec = spec
        self.unit = unit
        self.loop = loop
        self.origin = origin
        self.lifecycle = ChildLifecycle(settings: spec.settings)
        self.timeline = Timeline(origin: origin)
        self.backoff = RestartBackoff(spec.restart)
        self.runStartedAt = origin
        var logger = logger
        logger[metadataKey: "child"] = .string(spec.name)
        self.logger = logger
    }

    var name: String { spec.name }

    /// The earliest instant this child needs the loop to wake up for.
    var nextDeadline: Instant? {
        earliest(earliest(freezeRecheckAt, restartAt), lifecycleDeadline)
    }

    /// A run was spawned and something of its tree may still be running.
    var hasProcesses: Bool { pid > 0 && !isFinished }

    /// Nothing more will happen to this child: exited, its tree gone, no restart pending.
    var isDone: Bool { isFinished && wrappedUp && restartAt == nil }

    private func lifecycleChanged() {
        state = lifecycle.state
        isFinished = lifecycle.isFinished
        lifecycleDeadline = lifecycle.nextDeadline
    }

    /// Every run's lifecycle, oldest first.
    var runs: [ChildLifecycle] { pastRuns + [lifecycle] }

    // MARK: - Inputs

    /// Feeds `input` to the lifecycle, after reading what the child already wrote (the
    /// contract's order of decisions) and, for a command, after a look at what someone else
    /// did to it while suspended; carries out the actions. Returns the reasons a command was refused.
    @discardableResult
    func handle(_ input: LifecycleInput, at now: Instant) -> [String] {
        if input.isCommand { lookForOutsideChange(at: now) }
        if !deciding { drainRequests(at: now) }
        return decide(input, at: now)
    }

    /// Looks at a suspended child for what someone else did to it (``FreezerUnit/outsideChange()``)
    /// and decides what is found. Called when the state is about to matter — a freezer
    /// notification, a continued process, `status`, a `wait`, a command — never on a timer.
    func lookForOutsideChange(at now: Instant) {
        guard !deciding, state == .suspended, let change = unit.outsideChange() else { return }
        switch change {
        case .thawed(let seen): handle(.thawedFromOutside(seen: seen), at: now)
        case .mainProcessKilled: handle(.killedWhileFrozen, at: now)
        }
    }

    /// Decides `input` and carries out all of its actions before the next input is decided.
    /// Called while a decision is being carried out, it queues `input` behind it.
    @discardableResult
    private func decide(_ input: LifecycleInput, at now: Instant) -> [String] {
        pendingInputs.append((input, now))
        guard !deciding else { return [] }
        deciding = true
        defer { deciding = false }
        var refusals: [String] = []
        while !pendingInputs.isEmpty {
            let (input, now) = pendingInputs.removeFirst()
            let actions = lifecycle.handle(input, at: now)
            lifecycleChanged()
            perform(actions, at: now)
            for case .refuse(let reason) in actions { refusals.append(reason) }
        }
        return refusals
    }

    /// Reads every request already written (bounded, so a flooding child can't stall the loop).
    func drainRequests(at now: Instant) {
        readRequests(upTo: 1 << 20, at: now)
    }

    /// Reads up to `limit` bytes of requests and applies each one; nothing while the child's
    /// event backlog is full (``EventWriter/isFull``).
    func readRequests(upTo limit: Int, at now: Instant) {
        guard let reader, !reader.reachedEOF else { return }
        reader.read(upTo: limit, while: { writer?.isFull != true }) { line in self.receive(line, at: now) }
        if reader.reachedEOF {
            loop.remove(reader.fd)
        }
    }

    private func receive(_ line: LineSplitter.Line, at now: Instant) {
        let result: Result<Request, RequestError>
        switch line {
        case .line(let bytes):
            guard let parsed = RequestParser.parse(bytes) else { return }
            result = parsed
            if timeline.keepsMessages {
                record(.request, String(decoding: bytes, as: UTF8.self), at: now)
            } else {
                record(.request, "", at: now)
            }
        case .tooLong(let prefix):
            result = .failure(RequestError(code: .lineTooLong, rawRequest: prefix))
            record(.request, String(decoding: prefix, as: UTF8.self) + "…", at: now)
        }
        switch result {
        case .success(let request):
            decide(.request(request), at: now)
        case .failure(let error):
            logger.notice("refused request: \(error.code.rawValue) \(error.request)")
            decide(.malformed(error), at: now)
        }
    }

    /// The loop's timer passed: act on what is due.
    func tick(at now: Instant) {
        if let recheck = freezeRecheckAt, recheck <= now {
            freezeRecheckAt = nil
            checkFrozen(at: now)
        }
        if let deadline = lifecycleDeadline, deadline <= now {
            handle(.tick, at: now)
        }
    }

    // MARK: - Records

    /// Adds a timeline entry at `now`, the instant of the decision it belongs to: the instant the
    /// lifecycle counts its timers from, so the report's times agree with its rules.
    func record(_ kind: TimelineKind, _ text: @autoclosure () -> String, at now: Instant) {
        timeline.append(kind, text(), at: now)
    }

    func recordSnapshot(at now: Instant) {
        guard let usage = unit.resourceUsage() else { return }
        snapshots.append((now.milliseconds(since: origin), usage))
    }

    func recordSpawnFailure(_ error: SupervisorError, at now: Instant) {
        spawnFailure = error
        record(.note, error.message, at: now)
    }

    func started(pid: Int32, writer: EventWriter, reader: RequestReader, at now: Instant) {
        self.pid = pid
        self.writer = writer
        self.reader = reader
        runStartedAt = now
        wrappedUp = false
    }

    /// The run is over: read what is left of its requests and output, and close its pipes.
    func wrapUp() {
        wrappedUp = true
        if let reader {
            loop.remove(reader.fd)
            close(reader.fd)
            self.reader = nil
        }
        if let writer {
            errorsDroppedBefore += writer.errorsDropped
            loop.remove(writer.fd)
            close(writer.fd)
            self.writer = nil
        }
        output?.finish()
        output = nil
    }

    /// Schedules the next run after the back-off; the child reads `exited` until then.
    func scheduleRestart(at now: Instant) {
        let delay = backoff.delay(afterRunOf: now - runStartedAt)
        restartAt = now + delay
        record(.note, "restarting in \(delay.formatted) (run \(pastRuns.count + 2))", at: now)
        logger.notice("restarting in \(delay.formatted)")
    }

    /// Drops a pending restart (the child was told to terminate).
    func cancelRestart(at now: Instant) {
        guard restartAt != nil else { return }
        restartAt = nil
        record(.note, "restart cancelled", at: now)
    }

    /// Starts a fresh lifecycle for the next run, keeping the last one for the report.
    func beginNextRun() {
        guard restartAt != nil else { return }
        restartAt = nil
        pastRuns.append(lifecycle)
        lifecycle = ChildLifecycle(settings: spec.settings)
        lifecycleChanged()
        spawnFailure = nil
        pid = 0
    }
}
