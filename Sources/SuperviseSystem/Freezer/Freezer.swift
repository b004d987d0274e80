import SuperviseLifecycle

/// One way of freezing children. It makes one ``FreezerUnit`` per child.
public protocol Freezer: AnyObject {
    var kind: FreezerKind { get }

    /// Makes the unit (for the cgroup backends, a cgroup) that one child will be spawned into.
    func makeUnit(for childName: String) throws(SupervisorError) -> any FreezerUnit

    /// Removes what this freezer made for this supervisor (its own parent cgroup), on exit.
    func removeAll()

    /// The supervisor carried out a moment's actions and is about to wait for the next input:
    /// finishes what they left to share. The sigstop freezer's one scan that reaches the
    /// processes forked since a signal sent to a tree in the moment; nothing for the cgroups.
    func endMoment()

    /// A process of the supervisor's was continued (SIGCHLD): sigstop's looks made earlier in
    /// the moment are stale; nothing for the cgroups, whose state files tell.
    func processContinued()
}

extension Freezer {
    public func endMoment() {}
    public func processContinued() {}
}

/// What a check of a freeze found (``FreezerUnit/checkFreeze()``).
public enum FreezeCheck: Equatable, Sendable {
    case frozen
    case notFrozen
    /// The check did this turn's share of its work and goes on at the next turn.
    case unfinished
}

/// How far a thaw got in one turn (``FreezerUnit/thaw()``, ``FreezerUnit/continueThaw()``).
public enum ThawProgress: Equatable, Sendable {
    /// Every process runs again, verified.
    case done
    /// The thaw did this turn's share of its work and goes on at the next turn (sigstop, a
    /// large tree, ``SliceBudget``).
    case goesOn
}

extension FreezerUnit {
    public func checkFreeze() -> FreezeCheck {
        isFrozen() ? .frozen : .notFrozen
    }

    /// Only a backend that thaws in slices (sigstop) has anything left to do.
    public func continueThaw() throws(SupervisorError) -> ThawProgress { .done }
}

/// CPU time and memory of a child's processes, for the report's snapshots.
public struct ResourceUsage: Equatable, Sendable {
    public var rssKB: Int
    public var cpuMS: Double

    public init(rssKB: Int, cpuMS: Double) {
        self.rssKB = rssKB
        self.cpuMS = cpuMS
    }
}

/// The processes of one child, frozen, thawed and killed as one.
public protocol FreezerUnit: AnyObject {
    var kind: FreezerKind { get }

    /// The cgroup directory, for status and reports; `nil` for sigstop.
    var cgroupPath: String? { get }

    /// An open `cgroup.procs` (or v1 `tasks`/`cgroup.procs`) descriptor that the forked child
    /// writes `0` into before exec, so it runs none of its own code outside the unit; `nil` for
    /// sigstop, and for cgroup v2 while ``placementDirectoryFD`` is given.
    var placementFD: Int32? { get }

    /// An open cgroup v2 directory the child is created in (clone3 `CLONE_INTO_CGROUP`),
    /// sparing the migration a `placementFD` write costs (the spawner opens the directory's
    /// `cgroup.procs` only where `clone3` fails); `nil` for cgroup v1 and sigstop.
    var placementDirectoryFD: Int32? { get }

    /// Called once the child is spawned; its pid is also its process group id.
    func attach(pid: Int32)

    /// Asks every process of the unit to freeze. Does not wait.
    func requestFreeze() throws(SupervisorError)

    /// Whether every process of the unit is frozen now.
    func isFrozen() -> Bool

    /// Checks the freeze as the supervisor does, once in a turn of its loop: ``isFrozen()``, or
    /// for a backend that checks in slices (sigstop), that it did this turn's share and goes on
    /// at the next.
    func checkFreeze() -> FreezeCheck

    /// A descriptor that becomes readable when the frozen state may have changed
    /// (inotify on `cgroup.events`); `nil` when the supervisor must re-check on a
    /// back-off timer (cgroup v1) or on SIGCHLD (sigstop). The units of one freezer
    /// may share it: a wake-up is a reason to re-check each of them.
    var notificationFD: Int32? { get }

    /// Consumes what made `notificationFD` readable.
    func drainNotification()

    /// Looks now, at a unit whose freeze was verified, for what someone else did to it: a thaw,
    /// or a SIGKILL the freeze holds back. Asked when the child's state is about to matter (a
    /// notification, `status`, a `wait`, a command), never on a timer, and again at each turn
    /// while a look at a large sigstop tree goes on (`lookGoesOn`).
    func outsideChange() -> OutsideChange?

    /// Thaws every process and verifies it runs again, or, for a backend that thaws in slices
    /// (sigstop), does this turn's share of it and answers `goesOn`.
    @discardableResult
    func thaw() throws(SupervisorError) -> ThawProgress

    /// Goes on with a thaw that answered `goesOn`, another turn's share; `done` when none is
    /// under way. Anything else done to the unit meanwhile (a signal, a freeze) finishes the
    /// thaw first, whole.
    @discardableResult
    func continueThaw() throws(SupervisorError) -> ThawProgress

    /// Sends `signal` to every process of the child's tree, including those that left its
    /// process group (`setsid`, daemons): the stop-signal step of termination, and forwarding
    /// to the tree.
    func signalTree(_ signal: Int32)

    /// Sends a forwarded `signal` to `recipients`: the main process, its process group, or the
    /// tree (``signalTree(_:)``). A frozen child gets it when it is next thawed.
    func send(_ signal: Int32, to recipients: SignalRecipients)

    /// SIGKILLs every process of the unit (thawing first where the backend needs it).
    func killAll()

    /// Whether no process of the unit is left.
    func isEmpty() -> Bool

    /// CPU time and resident memory of the unit's processes, when the backend can tell.
    func resourceUsage() -> ResourceUsage?

    /// Thaws, kills whatever is left and removes the unit. Safe to call more than once.
    func remove()
}
