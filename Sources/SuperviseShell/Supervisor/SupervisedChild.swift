import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging
import SuperviseProtocol

/// One supervised child: its core (every rule, over all its runs), its process, pipes and
/// freezer unit, and its record.
final class SupervisedChild {
    let spec: ChildSpec
    private(set) var core: ChildCore
    /// What the core's last decision said; set from decisions only.
    private(set) var status: ChildStatus
    let unit: any FreezerUnit
    private(set) var pid: Int32 = 0
    private(set) var timeline: Timeline
    /// A snapshot at each verified freeze: the first and the last ``snapshotLimit``.
    private(set) var snapshots = HeadTailBuffer<(milliseconds: Double, usage: ResourceUsage)>(
        headLimit: SupervisedChild.snapshotLimit, tailLimit: SupervisedChild.snapshotLimit)
    /// How many snapshots are kept at each end.
    static let snapshotLimit = 1_000
    /// Its resident memory at the last verified freeze, in bytes: what a suspended child holds.
    private(set) var frozenMemory: UInt64 = 0
    /// Why it was last reclaimed (the budget, or memory pressure and its figures).
    var reclaimReason: String?
    /// Why no process ever ran: exec failed (127 or 126), or the supervisor could not start it (125).
    private(set) var spawnFailure: SupervisorError?

    var writer: EventWriter?
    var reader: RequestReader?
    /// Prefixes this child's output (several children only).
    var output: OutputForwarder?
    /// The core asked for the next run to start (``LifecycleAction/startRun``).
    private var runRequested = false
    /// The run's pipes are closed and its output flushed.
    private(set) var wrappedUp = false
    /// `error` events dropped by the runs already wrapped up (the child did not read them).
    private var errorsDroppedBefore = 0

    /// `error` events dropped because the child did not read its events, over every run.
    var errorsDropped: Int { errorsDroppedBefore + (writer?.errorsDropped ?? 0) }
    let logger: Logger
    let loop: EventLoop
    let origin: Instant

    /// Inputs raised while a decision's actions are carried out (a freeze verified at once),
    /// decided once those actions are all done: nothing re-enters ``perform(_:at:)``.
    private var pendingInputs: [(input: LifecycleInput, at: Instant)] = []
    private var deciding = false

    init(spec: ChildSpec, unit: any FreezerUnit, loop: EventLoop, origin: Instant, logger: Logger) {
        self.spec = spec
        self.unit = unit
        self.loop = loop
        self.origin = origin
        self.core = ChildCore(settings: spec.settings, restart: spec.restart, freezerNotifies: unit.notificationFD != nil,
                              autostart: spec.autostart, schedules: spec.schedules, at: origin)
        self.status = core.status
        self.timeline = Timeline(origin: origin)
        var logger = logger
        logger[metadataKey: "child"] = .string(spec.name)
        self.logger = logger
    }

    var name: String { spec.name }

    var state: ChildState { status.state }
    /// The current run's lifecycle.
    var lifecycle: ChildLifecycle { core.lifecycle }
    /// The kept runs' lifecycles, oldest first (``ChildCore/runLimit`` at each end).
    var runs: [ChildLifecycle] { core.runs }
    /// The runs between those kept, summed.
    var omittedRuns: OmittedRuns { core.omittedRuns }
    /// The earliest instant this child needs the loop to wake up for.
    var nextDeadline: Instant? { status.nextDeadline }

    // MARK: - Inputs

    /// Feeds `input` to the core, after reading what the child already wrote (the
    /// contract's order of decisions) and, for a command, after a look at what someone else
    /// did to it while suspended; carries out the actions. Returns the reasons a command was refused.
    @discardableResult
    func handle(_ input: LifecycleInput, at now: Instant) -> [String] {
        if input.isCommand { lookForOutsideChange(at: now) }
        if !deciding { drainRequests(at: now) }
        // The core refuses a command, or holds back a memory warning, while too many events wait
        // unread: it is told how many first.
        if input.readsUnreadEvents { decide(.eventsUnread(bytes: writer?.backlogBytes ?? 0), at: now) }
        return decide(input, at: now)
    }

    /// The supervisor was not running for `gap`: moves the child's deadlines before anything the
    /// child wrote meanwhile is read, so that what it wrote is judged against the moved ones.
    func supervisorWasAway(for gap: Duration, at now: Instant) {
        decide(.supervisorGap(gap), at: now)
    }

    /// Looks at a suspended child for what someone else did to it (``FreezerUnit/outsideChange()``)
    /// and decides what is found. Called when the state is about to matter — a freezer
    /// notification, a continued process, `status`, a `wait`, a command — never on a timer.
    func lookForOutsideChange(at now: Instant) {
        guard !deciding, state == .suspended, let input = outsideChange() else { return }
        handle(input, at: now)
    }

    /// What someone else did to the suspended child, as an input, if anything.
    func outsideChange() -> LifecycleInput? {
        switch unit.outsideChange() {
        case .thawed(let seen): .thawedFromOutside(seen: seen)
        case .mainProcessKilled: .killedWhileFrozen
        case .lookGoesOn: .lookUnfinished
        case nil: nil
        }
    }

    /// Looks at the tree of the exited child, and hands its core `treeEmptied` if nothing of it
    /// is left.
    func checkTreeEmpty(at now: Instant) {
        if unit.isEmpty() { handle(.treeEmptied, at: now) }
    }

    /// Asks the freezer whether the suspending child is frozen, and decides what it says.
    func checkFrozen(at now: Instant) {
        guard state == .suspending else { return }
        switch unit.checkFreeze() {
        // Decided at the moment it was verified: the check itself can take a while (sigstop).
        case .frozen: handle(.freezeVerified, at: MonotonicClock.now())
        case .notFrozen: handle(.notFrozenYet, at: now)
        case .unfinished: handle(.freezeUnfinished, at: now)
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
            let decision = core.handle(input, at: now)
            status = decision.status
            perform(decision.actions, at: now)
            for case .refuse(let reason) in decision.actions { refusals.append(reason) }
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
        if let deadline = status.nextDeadline, deadline <= now { handle(.tick, at: now) }
    }

    /// Whether the core asked for the next run to start; asks once.
    func takeRunRequest() -> Bool {
        defer { runRequested = false }
        return runRequested
    }

    /// The core decided on the next run: forget the last one's process.
    func prepareNextRun() {
        spawnFailure = nil
        pid = 0
        runRequested = true
    }

    // MARK: - Records

    /// Adds a timeline entry at `now`, the instant of the decision it belongs to: the instant the
    /// lifecycle counts its timers from, so the report's times agree with its rules.
    func record(_ kind: TimelineKind, _ text: @autoclosure () -> String, at now: Instant) {
        timeline.append(kind, text(), at: now)
    }

    func recordSnapshot(at now: Instant) {
        guard let usage = unit.resourceUsage() else {
            frozenMemory = 0
            return
        }
        frozenMemory = UInt64(max(usage.rssKB, 0)) * 1024
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
        wrappedUp = false
    }

    /// The run is over: read what is left of its requests and output, and close its pipes.
    func wrapUp() {
        wrappedUp = true
        if let reader {
            loop.remove(reader.fd)
            reader.close()
            self.reader = nil
        }
        if let writer {
            errorsDroppedBefore += writer.errorsDropped
            loop.remove(writer.fd)
            writer.close()
            self.writer = nil
        }
        output?.finish()
        output = nil
    }
}
