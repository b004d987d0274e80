import SuperviseLifecycle
import SuperviseSystemCall
import Glibc
import SystemPackage

/// One child's process tree, stopped and continued with signals, process by process.
final class SignalStopUnit: FreezerUnit {
    let kind = FreezerKind.sigstop
    let childName: String
    let cgroupPath: String? = nil
    let placementFD: Int32? = nil
    let placementDirectoryFD: Int32? = nil
    let notificationFD: Int32? = nil

    /// The freezer whose scans of `/proc` sort this unit's members.
    let freezer: SignalStopFreezer
    var procFS: ProcFS { freezer.procFS }
    /// The child's main process; `nil` until attached.
    private(set) var main: ProcessIdentity?
    /// The child's tree as the last scan (the freezer sets it) or a freeze's walk found it. A
    /// member stays one when orphaned: each scan and walk follows the tree from these as well as
    /// from `main`.
    var members: Set<ProcessIdentity> = []
    private var freeze: Freeze?
    /// A look for a change from outside that goes on at the next turn (``outsideChange()``).
    private var outsideLook: OutsideLook?
    /// The moment (``SignalStopFreezer/moment``) the last look ended in: asked again in it, as
    /// a command that waited for the look runs, it finds nothing new and reads nothing.
    private var lookEndedIn: Int?
    /// A thaw that goes on at the next turn (``continueThaw()``).
    private var thawing: ThawWalk?
    /// Why a thaw finished whole (``finishThaw()``) failed: told by the next ``continueThaw()``.
    private var thawFailure: SupervisorError?
    /// The scan of `/proc` that answers a round of the walk where the kernel has no `children` files.
    var walkScan: (round: Int, table: ProcessTable)?
    /// Job-control signals sent while a freeze stopped the tree, in order, with whom they were
    /// sent to: the thaw's SIGCONT makes the kernel discard them, so the thaw sends them again.
    private var heldJobControlSignals: [(signal: Int32, recipients: SignalRecipients)] = []
    /// Signals sent to the tree whose closing is still to come, in the order they were sent: the
    /// freezer's next scan finds the members that came since, and each gets them in that order.
    private var closings: [TreeSignal] = []
    /// A scan that started once every member was seen dead found none left: the tree is empty
    /// for good (an empty tree can't fork), until the next run is attached.
    private(set) var knownEmpty = false
    private var removed = false

    /// The stop signals a SIGCONT discards while they are pending.
    private static let jobControlSignals: Set<Int32> = [SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU]

    /// A freeze in progress or in effect.
    struct Freeze {
        var walk: FreezeWalk
        var verified = false
        /// The request's round sent its stops and ended, and no check came since: the next one,
        /// made in the same moment, begins no round, as the processes have had no time to stop;
        /// with `background all`, every unit's stops are sent before any look.
        var stopsJustSent = false
    }

    /// The stopped processes a look has still to look at, and the times each one it looked at
    /// has run (`nil`: the kernel does not count).
    struct OutsideLook {
        var left: [ProcessIdentity]
        var timesRun: [ProcessIdentity: UInt64]? = [:]
    }

    init(childName: String, freezer: SignalStopFreezer) {
        self.childName = childName
        self.freezer = freezer
    }

    /// Attaches the next run's main process, whose files are held open: every freeze, look and
    /// thaw reads them (``HeldProcessFiles``).
    func attach(pid: Int32) {
        if let main { procFS.release(main) }
        main = procFS.hold(pid, childOf: freezer.adoption?.adopter)?.0
            ?? procFS.stat(pid).map { ProcessIdentity(pid: pid, startTicks: $0.startTicks) }
        members = main.map { [$0] } ?? []
        freeze = nil
        outsideLook = nil
        thawing = nil
        thawFailure = nil
        heldJobControlSignals = []
        closings = []
        knownEmpty = false
    }

    /// Sends SIGSTOP to every member the last scan or walk found, also those an earlier freeze
    /// stopped (someone may have continued them), as many as the turn's budget allows (the
    /// checks that follow send the rest). No look and no walk here: the processes have had no
    /// time to stop; the checks that follow walk the tree (``FreezeWalk``).
    func requestFreeze() throws(SupervisorError) {
        guard main != nil else { return }
        finishThaw()
        freeze = Freeze(walk: FreezeWalk(members: members, adopter: freezer.adoption?.adopter))
        outsideLook = nil
        walkScan = nil
        _ = freezer.takeOrphans(for: self)  // listed for an earlier freeze's walk
        let failure = advanceWalk()
        let ended = freeze?.walk.verdict != nil
        freeze?.stopsJustSent = ended
        if let (process, error) = failure {
            throw SupervisorError(.freezer, "could not freeze child \(childName): stopping process \(process.pid) failed: "
                                  + "\(error.sentenceText)", errno: error.rawValue)
        }
    }

    /// Whether every process of the tree is verified stopped.
    func isFrozen() -> Bool {
        checkFreeze() == .frozen
    }

    /// The verdict of the round this check begins or goes on with (``FreezeWalk``), or
    /// `unfinished` when the turn's budget ran out first (``SliceBudget``).
    func checkFreeze() -> FreezeCheck {
        guard main != nil else { return .frozen }
        guard let current = freeze else { return .notFrozen }
        if current.verified { return .frozen }
        if current.walk.verdict != nil {
            freeze?.stopsJustSent = false
            guard !current.stopsJustSent else { return .notFrozen }
            freeze?.walk.beginRound(members: members)
        }
        advanceWalk()
        guard let checked = freeze, checked.walk.verdict != nil else { return .unfinished }
        return checked.verified ? .frozen : .notFrozen
    }

    /// Whether a freeze is requested and not verified yet.
    var awaitsVerification: Bool { freeze.map { !$0.verified } ?? false }

    /// Whether a look for a change from outside goes on at the next turn.
    var looksOn: Bool { outsideLook != nil }

    /// Whether a thaw goes on at the next turn.
    var thawsOn: Bool { thawing != nil }

    /// Carries out the walk's steps until its round has a verdict, or this check's share of the
    /// turn's budget is spent; the first stop that failed for another reason than the process
    /// being gone.
    @discardableResult
    private func advanceWalk() -> (ProcessIdentity, Errno)? {
        guard var walk = freeze?.walk else { return nil }
        var failure: (ProcessIdentity, Errno)?
        var taken = 0
        takeOrphans(into: &walk)
        while walk.verdict == nil, !walk.awaitsOrphans, freezer.budget.take(counting: &taken), let step = walk.nextStep() {
            if let error = carryOut(step, in: &walk), failure == nil, case .stop(let process) = step { failure = (process, error) }
            takeOrphans(into: &walk)
        }
        freeze?.walk = walk
        guard let verdict = walk.verdict else { return failure }
        members = walk.members
        freeze?.verified = verdict == .frozen
        return failure
    }

    /// Gives `walk` the supervisor's children it waits for, once they are listed.
    private func takeOrphans(into walk: inout FreezeWalk) {
        if walk.awaitsOrphans, let orphans = freezer.takeOrphans(for: self) { walk.found(children: orphans) }
    }

    func drainNotification() {}

    /// A continue by someone else shows as a process this freeze stopped that is no longer
    /// halted, or, when that look misses it (a continued shell parked in `vfork` counts as
    /// halted), as a member the freeze did not stop: a stopped tree can't fork, so the tree ran.
    /// That scan is made only when a stopped process has run since the freeze was verified
    /// (its schedstat count moved), or the kernel can't tell. The main process, held open, is
    /// read whole only then (``look(since:at:)``).
    /// A stopped process dies of SIGKILL, so no kill is held back.
    ///
    /// The look takes its steps from the turn's budget (``SliceBudget``), as a freeze's walk
    /// does: a large tree is looked at over several turns (`lookGoesOn` until it is done), and
    /// the loop takes its other inputs between them.
    func outsideChange() -> OutsideChange? {
        guard let current = freeze, current.verified else { return nil }
        var look: OutsideLook
        if let going = outsideLook {
            look = going
        } else {
            guard lookEndedIn != freezer.moment else { return nil }
            look = OutsideLook(left: Array(current.walk.stopped))
        }
        defer { outsideLook = look.left.isEmpty ? nil : look }
        var taken = 0
        while let process = look.left.last {
            guard freezer.budget.take(counting: &taken) else { return .lookGoesOn }
            look.left.removeLast()
            switch self.look(since: current.walk, at: process) {
            case .running:
                look.left = []
                lookEndedIn = freezer.moment
                return .thawed("process \(process.pid) was continued")
            case .halted(let count, _, _):
                if let count, look.timesRun != nil { look.timesRun?[process] = count } else { look.timesRun = nil }
            case .gone: continue
            }
        }
        lookEndedIn = freezer.moment
        // No stopped process has run since the looks of the round that verified the freeze: none
        // forked, so no scan can find a member more (the foreground path's one scan, spared).
        if let before = current.walk.timesRun, before == look.timesRun { return nil }
        freezer.recentTable()
        guard let fresh = members.subtracting(current.walk.stopped).first else { return nil }
        return .thawed("process \(fresh.pid) started while the tree was stopped")
    }

    /// Continues every process this freeze stopped, the main process first, and verifies that
    /// none is still stopped, taking its steps from the turn's budget as a freeze's walk does
    /// (``ThawWalk``): `goesOn` when the rest is for the next turns (``continueThaw()``). At its
    /// end it sends again the job-control signals the SIGCONT discarded.
    @discardableResult
    func thaw() throws(SupervisorError) -> ThawProgress {
        guard let stopped = freeze?.walk.stopped else { return .done }
        freeze = nil
        outsideLook = nil
        thawing = ThawWalk(stopped: stopped, main: main)
        return try continueThaw()
    }

    @discardableResult
    func continueThaw() throws(SupervisorError) -> ThawProgress {
        let progress = advanceThaw(inSlices: true)
        if let failure = thawFailure {
            thawFailure = nil
            throw failure
        }
        return progress
    }

    /// Finishes a thaw under way at once, whole, before anything else acts on the tree (a
    /// signal, a freeze): it then finds every process running, as after a thaw made in one
    /// turn. A failure is told by the next ``continueThaw()``, which the core asks for.
    private func finishThaw() {
        advanceThaw(inSlices: false)
    }

    /// Takes the thaw's steps, as many as this turn's share of the budget allows when
    /// `inSlices`; at the end waits up to 1 s for any process still stopped (traced, or stopped
    /// again by someone), keeping the failure, and sends the held job-control signals again.
    @discardableResult
    private func advanceThaw(inSlices: Bool) -> ThawProgress {
        guard var walk = thawing else { return .done }
        var taken = 0
        while !walk.isDone {
            if inSlices, !freezer.budget.take(counting: &taken) {
                thawing = walk
                return .goesOn
            }
            switch walk.nextStep() {
            case .continueProcess(let process): procFS.signal(process, SIGCONT)
            case .verify(let process): if isStillStopped(process) { walk.foundStillStopped(process) }
            case nil: break
            }
        }
        thawing = nil
        let stillStopped = walk.stillStopped
        let running = stillStopped.isEmpty || waitBriefly(upTo: .seconds(1)) { !stillStopped.contains(where: isStillStopped) }
        let held = heldJobControlSignals
        heldJobControlSignals = []
        for (signal, recipients) in held { send(signal, to: recipients) }
        if !running {
            thawFailure = SupervisorError(.freezer, "could not thaw child \(childName): some of its processes are still "
                                          + "stopped 1 s after SIGCONT")
        }
        return .done
    }

    /// Whether a thread of `process` is still stopped (`T`, `t`); one with a single thread is
    /// told by its own stat, without listing its threads.
    private func isStillStopped(_ process: ProcessIdentity) -> Bool {
        guard let stat = procFS.stat(process) else { return false }
        guard stat.threads > 1 else { return "Tt".contains(stat.state) }
        return procFS.threadStats(process.pid).contains { "Tt".contains($0.state) }
    }

    /// Signals every member now; the freezer's next scans signal the members that turn up
    /// since, until none does (``SignalStopFreezer/endMoment()``).
    func signalTree(_ signal: Int32) {
        send(signal, to: .tree)
    }

    /// A stopped process keeps the signal pending until the thaw's SIGCONT, which discards a
    /// pending job-control signal: one sent while a freeze is requested or in effect is also
    /// kept for the thaw to send again, to the same recipients.
    func send(_ signal: Int32, to recipients: SignalRecipients) {
        guard main != nil else { return }
        finishThaw()
        if freeze != nil, Self.jobControlSignals.contains(signal) { heldJobControlSignals.append((signal, recipients)) }
        guard !procFS.system.kill(recipients, signal), !knownEmpty else { return }
        var closing = TreeSignal(signal: signal)
        if closing.send(to: members, procFS) { closings.append(closing) }
    }

    /// Whether a signal sent to the tree waits for the scan that closes it.
    var awaitsClosing: Bool { !closings.isEmpty }

    /// After a scan: sends each pending signal to the members it has not reached yet, in the
    /// order the signals were sent; a signal is closed once a scan finds no new member, or
    /// after ``TreeSignal/maxRounds`` rounds.
    func closeSignals() {
        closings = closings.compactMap { closing in
            var closing = closing
            return closing.send(to: members, procFS) ? closing : nil
        }
    }

    /// SIGKILLs the tree (a stopped process dies of SIGKILL too).
    func killAll() {
        signalTree(SIGKILL)
    }

    /// Whether no member is left alive (zombies count as gone): a look at the known members,
    /// and when they are all gone a scan for any the last one missed, which answers every unit
    /// whose members are all gone in the same moment (``SignalStopFreezer/verifyEmpty(_:)``).
    func isEmpty() -> Bool {
        guard main != nil, !knownEmpty else { return true }
        guard membersAreGone() else { return false }
        freezer.verifyEmpty(self)
        return knownEmpty
    }

    /// Whether every member the last scan found is dead or gone: the look before a scan that
    /// may find the tree empty.
    func membersAreGone() -> Bool {
        !knownEmpty && main != nil && !members.contains { procFS.stat($0).map { !$0.isDead } ?? false }
    }

    /// Takes the verdict of a scan that started after ``membersAreGone()`` said yes.
    func concludeEmpty() {
        knownEmpty = members.isEmpty
        if knownEmpty { closings = [] }
    }

    /// The usage of the members the last scan or walk found. A snapshot is taken when a freeze
    /// is verified: each member is then counted from the stat its look in the verifying round
    /// read (``FreezeWalk/stats``), not read again: a second pass over a tree of thousands
    /// held the loop as long as the looks.
    func resourceUsage() -> ResourceUsage? {
        guard main != nil else { return nil }
        let looked = freeze.flatMap { $0.verified ? $0.walk.stats : nil } ?? [:]
        return ProcFS.usage(of: members.compactMap { looked[$0] ?? procFS.stat($0) })
    }

    func remove() {
        guard !removed else { return }
        removed = true
        guard main != nil else { return }
        killAll()
        freezer.endMoment()
        _ = waitBriefly(upTo: .seconds(1), until: isEmpty)
        if let main { procFS.release(main) }
    }
}
