import SuperviseLifecycle
import Glibc

/// Freezes each child's process tree with SIGSTOP, process by process. Needs no privilege;
/// the tree is followed by parent links in `/proc`, and each stopped process's parent sees it stop.
///
/// A freeze is checked by walking the tree down its children links (``FreezeWalk``), without a
/// scan of `/proc`. The freezer owns the scans its units share: each scan sorts every unit's
/// members at once (``ChildTrees``) and closes every signal sent to a tree before it; one
/// emptiness scan serves every unit whose members are gone, and one scan at the end of a moment
/// every signal sent to a tree in it (`terminate all`: a scan, not one per child).
public final class SignalStopFreezer: Freezer {
    public let kind = FreezerKind.sigstop
    /// Where orphans go; `nil` when nothing is a subreaper for the children (tests).
    let adoption: OrphanAdoption?
    /// The `/proc` the scans read and the signals go through.
    let procFS: ProcFS
    private var units: [SignalStopUnit] = []
    /// What is left of this turn's share of the freeze walks and the looks.
    var budget = SliceBudget()
    /// Counts the moments (``endMoment()``) and the continues seen in one
    /// (``processContinued()``): a look that ended since the last of them is not made again.
    private(set) var moment = 0
    /// The last scan, when it finished and how long it took.
    private var lastScan: (table: ProcessTable, finished: ContinuousClock.Instant, took: Duration)?

    /// The supervisor itself, whose children (the orphans) are listed at every freeze through
    /// files held open; `nil` when they are read by path.
    private let heldAdopter: ProcessIdentity?

    init(adoption: OrphanAdoption?, system: any FreezerSystem = LinuxFreezerSystem()) {
        self.adoption = adoption
        let procFS = ProcFS(system)
        self.procFS = procFS
        heldAdopter = adoption.flatMap { procFS.hold($0.adopter, childOf: nil)?.0 }
    }

    public func makeUnit(for childName: String) throws(SupervisorError) -> any FreezerUnit {
        let unit = SignalStopUnit(childName: childName, freezer: self)
        units.append(unit)
        return unit
    }

    /// Removes every unit, then kills what is left below the supervisor: orphans no child claimed.
    public func removeAll() {
        for unit in units { unit.remove() }
        units.removeAll()
        if let heldAdopter { procFS.release(heldAdopter) }
        guard let adoption else { return }
        signalUntilClosed(SIGKILL) { table in
            let table = table ?? ProcessTable.scan(procFS)
            return table.trees(from: table.children(of: adoption.adopter))
        }
    }

    /// Scans `/proc` and sorts every unit's members from it.
    @discardableResult
    func rescan() -> ProcessTable {
        let started = ContinuousClock.now
        let table = ProcessTable.scan(procFS)
        lastScan = (table, .now, started.duration(to: .now))
        let known = units.map { ChildTrees.Known(name: $0.childName, main: $0.main, members: $0.members) }
        let trees = ChildTrees.sort(known, in: table, adoption: adoption, nameOf: procFS.supervisedName)
        for (unit, tree) in zip(units, trees) { unit.members = tree }
        for unit in units { unit.closeSignals() }
        return table
    }

    /// The moment's actions are done (the supervisor is about to wait): scans until every signal
    /// sent to a tree in it is closed, one scan for all of them (at most ``TreeSignal/maxRounds``),
    /// and renews the budget of the freeze walks for the next turn.
    public func endMoment() {
        while units.contains(where: \.awaitsClosing) { rescan() }
        listOrphans()
        budget.renew(freezes: units.count { $0.awaitsVerification || $0.looksOn || $0.thawsOn })
        moment &+= 1
    }

    /// A process of the supervisor's was continued: a look that ended earlier in this moment
    /// no longer tells, and the next one is made again.
    public func processContinued() {
        moment &+= 1
    }

    /// The last scan while it is younger than it took to make (2 ms at least), else a new one:
    /// looking at every suspended child in one moment (`status`) then costs a few scans, not one each.
    @discardableResult
    func recentTable() -> ProcessTable {
        if let (table, finished, took) = lastScan, finished.duration(to: .now) < max(took, .milliseconds(2)) { return table }
        return rescan()
    }

    /// Sends `signal` to each process `members` finds, starting from the last scan's members and
    /// scanning again after each round until no new one turns up (``TreeSignal``). `members`
    /// gets the scan of the round before (`nil` in the first round).
    func signalUntilClosed(_ signal: Int32, _ members: (ProcessTable?) -> Set<ProcessIdentity>) {
        var closing = TreeSignal(signal: signal)
        guard closing.send(to: members(nil), procFS) else { return }
        while closing.send(to: members(rescan()), procFS) {}
    }

    /// Units whose walk waits for the supervisor's children, in the order they asked.
    private var orphanAskers: [SignalStopUnit] = []
    /// The supervisor's children listed at the end of a turn for each unit that asked, leaving
    /// out every other unit's main process and members.
    private var orphanAnswers: [ObjectIdentifier: [Int32]] = [:]

    /// `unit`'s walk has walked its members and asks for the supervisor's children: the end of
    /// the turn lists them once for every unit that asked in it (``listOrphans()``). A unit
    /// alone in freezing has them listed at once, and its check ends in this turn.
    func awaitOrphans(_ unit: SignalStopUnit) {
        orphanAskers.append(unit)
        if !units.contains(where: { $0 !== unit && $0.awaitsVerification }) { listOrphans() }
    }

    /// The answer listed for `unit` since it asked, once.
    func takeOrphans(for unit: SignalStopUnit) -> [Int32]? {
        orphanAnswers.removeValue(forKey: ObjectIdentifier(unit))
    }

    /// Lists the supervisor's children once, after every walk of the turn asked (a process whose
    /// parent exits mid-walk goes there, so the listing must follow the walk), and answers each
    /// unit that asked: one read of a file of 1,000 pids a turn, not one per child.
    private func listOrphans() {
        guard !orphanAskers.isEmpty, let adopter = adoption?.adopter else { return }
        // The supervisor runs on one thread, which every orphan is reparented to.
        let listed = procFS.children(adopter, thread: String(adopter))
            ?? ProcessTable.scan(procFS).children(of: adopter).map(\.pid)
        var owners: [Int32: ObjectIdentifier] = [:]
        for unit in units {
            if let main = unit.main { owners[main.pid] = ObjectIdentifier(unit) }
            for member in unit.members { owners[member.pid] = ObjectIdentifier(unit) }
        }
        for unit in orphanAskers {
            let asker = ObjectIdentifier(unit)
            orphanAnswers[asker] = listed.filter { owners[$0].map { $0 == asker } ?? true }
        }
        orphanAskers = []
    }

    /// Answers whether `asker`'s tree is empty, and with the same scan every other unit's whose
    /// members are all gone: each looked before the scan started, so a process one of them forked
    /// before it died is in the scan (reparented here). A batch of exits costs one scan.
    func verifyEmpty(_ asker: SignalStopUnit) {
        let others = units.filter { $0 !== asker && $0.membersAreGone() }
        rescan()
        asker.concludeEmpty()
        for unit in others { unit.concludeEmpty() }
    }
}
