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
    private let freezer: SignalStopFreezer
    private var procFS: ProcFS { freezer.procFS }
    /// The child's main process; `nil` until attached.
    private(set) var main: ProcessIdentity?
    /// The child's tree as the last scan found it (the freezer sets it). A member stays one when
    /// orphaned: each scan follows the tree from these as well as from `main`.
    var members: Set<ProcessIdentity> = []
    private var freeze: Freeze?
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
    private struct Freeze {
        /// Every process sent SIGSTOP by this freeze: thawing continues exactly these.
        var stopped: Set<ProcessIdentity> = []
        var verified = false
        /// What a verification found since `isFrozen` last asked.
        var answer: Bool?
        /// Until the first check: the one made in the moment of the request does not scan. The
        /// processes have had no time to stop, and with `background all` the first later check
        /// answers every unit requested in that moment with one scan.
        var justRequested = true
        /// How many times the kernel had run each stopped process (its threads' schedstat), at
        /// the look before the scan that verified the freeze; `nil` when it can't tell.
        var runsWhenVerified: [ProcessIdentity: UInt64]?
    }

    init(childName: String, freezer: SignalStopFreezer) {
        self.childName = childName
        self.freezer = freezer
    }

    func attach(pid: Int32) {
        main = procFS.stat(pid).map { ProcessIdentity(pid: pid, startTicks: $0.startTicks) }
        members = main.map { [$0] } ?? []
        freeze = nil
        heldJobControlSignals = []
        closings = []
        knownEmpty = false
    }

    /// Sends SIGSTOP to every member the last scan found, also those an earlier freeze stopped
    /// (someone may have continued them). No scan here: the verification's scan, which must
    /// follow the stops anyway, finds the members that came since and stops them (a scan per
    /// request cost 1,000 children 19 s: one scan of ~2,000 processes takes ~20 ms).
    func requestFreeze() throws(SupervisorError) {
        guard main != nil else { return }
        freeze = Freeze()
        if let (process, error) = stopNewMembers().first(where: { $0.error != nil }), let error {
            throw SupervisorError(.freezer, "could not freeze child \(childName): stopping process \(process.pid) failed: "
                                  + "\(error.sentenceText)", errno: error.rawValue)
        }
    }

    /// Whether every process of the tree is verified stopped: the answer of a check made for
    /// another unit since this one last asked, or of a new one (``SignalStopFreezer/verifyFreeze(of:)``).
    func isFrozen() -> Bool {
        guard main != nil else { return true }
        guard let current = freeze else { return false }
        if current.verified { return true }
        if current.answer == nil, !current.justRequested { freezer.verifyFreeze(of: self) }
        freeze?.justRequested = false
        defer { freeze?.answer = nil }
        return freeze?.answer ?? false
    }

    /// Whether this unit's freeze is requested and not yet verified.
    var awaitsVerification: Bool { freeze.map { !$0.verified } ?? false }

    /// Stops the members not yet stopped, then says whether every process stopped is halted.
    func stoppedAreHalted() -> Bool {
        stopNewMembers()
        guard let stopped = freeze?.stopped, stopped.allSatisfy(isHalted) else { return false }
        freeze?.runsWhenVerified = timesRun(stopped)
        return true
    }

    /// How many times the kernel has run each of `processes` (the sum over its threads of
    /// `/proc/PID/task/TID/schedstat`'s third field); `nil` when it can't tell: a file missing
    /// (a kernel without schedstat), or a count of 0, which a process that ever ran can't have
    /// where the kernel counts.
    private func timesRun(_ processes: Set<ProcessIdentity>) -> [ProcessIdentity: UInt64]? {
        var runs: [ProcessIdentity: UInt64] = [:]
        for process in processes where procFS.stat(process) != nil {
            guard let count = procFS.timesRun(process.pid), count > 0 else { return nil }
            runs[process] = count
        }
        return runs
    }

    /// Takes a verification's verdict: frozen when every stopped process was halted before the
    /// scan and the scan found no member not stopped (it stops those).
    func conclude(haltedBeforeScan: Bool) {
        let verified = stopNewMembers().isEmpty && haltedBeforeScan
        freeze?.verified = verified
        freeze?.answer = verified
    }

    /// SIGSTOPs each member this freeze has not stopped yet; each with the errno of a failure.
    @discardableResult
    private func stopNewMembers() -> [(process: ProcessIdentity, error: Errno?)] {
        guard let stopped = freeze?.stopped else { return [] }
        let fresh = members.subtracting(stopped)
        freeze?.stopped.formUnion(fresh)
        return fresh.map { ($0, procFS.signal($0, SIGSTOP)) }
    }

    /// Whether every thread of `process` is stopped, or it is gone.
    ///
    /// A thread in `vfork` waiting for its child counts as halted: dash runs commands with
    /// vfork, and when SIGSTOP stops the child before its exec the parent waits in `D`
    /// state, unable to run, until it is continued (the child is a member, checked itself).
    private func isHalted(_ process: ProcessIdentity) -> Bool {
        guard procFS.stat(process) != nil else { return true }
        let pid = process.pid
        return procFS.threadIDs(pid).allSatisfy { thread in
            guard let stat = procFS.threadStat(pid, thread: thread) else { return true }
            if stat.isHalted { return true }
            guard stat.state == "D" else { return false }
            return Self.vforkWaits.contains(procFS.waitChannel(pid, thread: thread) ?? "")
        }
    }

    /// Where the kernel parks a vfork parent (`/proc/PID/wchan`), across kernel versions.
    private static let vforkWaits: Set<String> = ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]

    func drainNotification() {}

    /// A continue by someone else shows as a process this freeze stopped that is no longer
    /// halted, or, when that look misses it (a continued shell parked in `vfork` counts as
    /// halted), as a member the freeze did not stop: a stopped tree can't fork, so the tree ran.
    /// That scan is made only when a stopped process has run since the freeze was verified
    /// (its schedstat count moved), or the kernel can't tell.
    /// A stopped process dies of SIGKILL, so no kill is held back.
    func outsideChange() -> OutsideChange? {
        guard let stopped = freeze?.stopped, freeze?.verified == true else { return nil }
        if let running = stopped.first(where: { !isHalted($0) }) {
            return .thawed("process \(running.pid) was continued")
        }
        // No stopped process has run since the look before the verifying scan: none forked,
        // so no scan can find a member more (the foreground path's one scan, spared).
        if let before = freeze?.runsWhenVerified, before == timesRun(stopped) { return nil }
        freezer.recentTable()
        guard let fresh = members.subtracting(stopped).first else { return nil }
        return .thawed("process \(fresh.pid) started while the tree was stopped")
    }

    /// Continues every process this freeze stopped and verifies that none is still stopped;
    /// then sends again the job-control signals the SIGCONT discarded.
    func thaw() throws(SupervisorError) {
        guard let stopped = freeze?.stopped else { return }
        freeze = nil
        for process in stopped { procFS.signal(process, SIGCONT) }
        let running = waitBriefly(upTo: .seconds(1)) {
            stopped.allSatisfy { process in
                procFS.stat(process) == nil || procFS.threadStats(process.pid).allSatisfy { !"Tt".contains($0.state) }
            }
        }
        let held = heldJobControlSignals
        heldJobControlSignals = []
        for (signal, recipients) in held { send(signal, to: recipients) }
        guard running else {
            throw SupervisorError(.freezer, "could not thaw child \(childName): some of its processes are still stopped "
                                  + "1 s after SIGCONT")
        }
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

    /// The usage of the members the last scan found: a snapshot is taken when a freeze is
    /// verified, just after the scan that confirmed it.
    func resourceUsage() -> ResourceUsage? {
        guard main != nil else { return nil }
        return procFS.usage(of: members.map(\.pid))
    }

    func remove() {
        guard !removed else { return }
        removed = true
        guard main != nil else { return }
        killAll()
        freezer.endMoment()
        _ = waitBriefly(upTo: .seconds(1), until: isEmpty)
    }
}
