import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystemCall
import Glibc
import _SuperviseCShims

/// Watches the machine's conditions while due scheduled tasks wait for them, and says when
/// the set that holds changes: the shape of the supervisor's `ConditionSource`.
///
/// While no task waits it keeps no descriptor and no deadline, so an idle supervisor makes no
/// system call for it. While one waits (``watch(_:at:)``) it watches each awaited condition
/// where the kernel announces changes — a CPU pressure trigger for `idle` (it fires as the
/// machine turns busy), a `NETLINK_KOBJECT_UEVENT` socket for `power` (any uevent, a supply's
/// among them), an rtnetlink socket for `network` (links, IPv4 and IPv6 routes) — and asks to
/// ``look(at:)`` again every ``recheckInterval`` besides, as pressure falling (the machine
/// turning idle) has no notification and a stand-in file none at all.
public final class ConditionWatcher {
    /// How often the awaited conditions are re-read while a task waits.
    public static let recheckInterval: Duration = .seconds(5)
    /// The CPU pressure trigger's window: the kernel takes only whole multiples of 2 s from a
    /// process without `CAP_SYS_RESOURCE`.
    public static let idleTriggerWindow: Duration = .seconds(2)

    public let conditions: MachineConditions
    /// The awaited conditions that held when last read; one not awaited is not known, so it is
    /// not in the set.
    public private(set) var held: Set<ScheduleCondition> = []

    private var awaited: Set<ScheduleCondition> = []
    /// When to look again; `nil` while nothing is awaited.
    private var nextLook: Instant?
    private var loop: EventLoop?
    private var changed: () -> Void = {}
    private var idleTrigger: PressureTrigger?
    private var sockets: [ScheduleCondition: Int32] = [:]

    public init(conditions: MachineConditions = MachineConditions()) {
        self.conditions = conditions
    }

    deinit {
        stopWatching(Set(ScheduleCondition.allCases))
    }

    /// The loop the notifications are watched in, and what to call when one changed ``held``.
    /// Nothing is added to `loop` until a condition is awaited.
    public func attach(to loop: EventLoop, changed: @escaping () -> Void) {
        self.loop = loop
        self.changed = changed
    }

    /// Due tasks wait for `awaited` (empty: none does); called before every wait of the loop,
    /// so it does nothing while `awaited` is what it was. Watches what is newly awaited and
    /// stops watching the rest, forgetting it from ``held``. Returns when to ``look(at:)``:
    /// `now` when something is newly awaited (it is read at once), else the next re-read;
    /// `nil` when nothing is awaited.
    public func watch(_ awaited: Set<ScheduleCondition>, at now: Instant) -> Instant? {
        guard awaited != self.awaited else { return nextLook }
        stopWatching(self.awaited.subtracting(awaited))
        for condition in awaited.subtracting(self.awaited) { startWatching(condition) }
        let isNew = !awaited.isSubset(of: self.awaited)
        self.awaited = awaited
        held.formIntersection(awaited)
        if awaited.isEmpty { nextLook = nil } else if isNew { nextLook = now }
        return nextLook
    }

    /// Reads the awaited conditions into ``held``, and sets the next re-read.
    public func look(at now: Instant) {
        guard !awaited.isEmpty else { return }
        nextLook = now + Self.recheckInterval
        held = read()
    }

    private func read() -> Set<ScheduleCondition> {
        Set(awaited.filter { (try? conditions.read($0).get()) == true })
    }

    /// A notification: reads the awaited conditions, and calls `changed` if ``held`` changed.
    private func notified() {
        let now = read()
        guard now != held else { return }
        held = now
        changed()
    }

    private func startWatching(_ condition: ScheduleCondition) {
        switch condition {
        case .idle:
            let sources = conditions.sources
            let window = Self.idleTriggerWindow
            // Without a loop, or a trigger (no PSI; a stand-in that is a plain file, which a
            // trigger would be written into), the re-read alone tells.
            guard let loop, Self.isKernelFile(sources.cpuPressure),
                  case .success(let trigger) = PressureTrigger.open(
                      path: sources.cpuPressure, scope: .some,
                      stall: sources.idleRule.triggerStall(window: window), window: window)
            else { return }
            idleTrigger = trigger
            _ = loop.add(trigger.descriptor, events: EventLoop.priority) { [unowned self] events in
                if events & EventLoop.closed != 0 { stopWatching([.idle]) }
                notified()
            }
        case .power:
            openSocket(for: .power, protocol: _supervise_netlink_uevent, groups: _supervise_uevent_group)
        case .network:
            openSocket(for: .network, protocol: _supervise_netlink_route, groups: _supervise_route_groups)
        }
    }

    /// A netlink socket whose messages only say "something changed": each wake drains them
    /// and re-reads. Without one (the kernel refused it) the re-check alone tells.
    private func openSocket(for condition: ScheduleCondition, protocol: Int32, groups: UInt32) {
        guard let loop, case .success(let fd) = valueOrErrno({ _supervise_netlink_open(`protocol`, groups) }) else {
            return
        }
        sockets[condition] = fd
        _ = loop.add(fd) { [unowned self] _ in
            // ENOBUFS (messages lost) means only that something changed; any other failure
            // leaves the socket to the re-check, which reads the files anyway.
            _ = valueOrErrno { _supervise_netlink_drain(fd) }
            notified()
        }
    }

    /// True for a file of procfs or cgroup v2, where a pressure trigger can be written.
    private static func isKernelFile(_ path: String) -> Bool {
        guard case .success(let fd) = FileIO.open(path, O_RDONLY) else { return false }
        defer { Descriptor.close(fd) }
        var type = 0
        guard case .success = valueOrErrno({ _supervise_file_system_type(fd, &type) }) else { return false }
        let procfs = 0x9fa0, cgroup2 = 0x6367_7270
        return type == procfs || type == cgroup2
    }

    private func stopWatching(_ conditions: Set<ScheduleCondition>) {
        for condition in conditions {
            if condition == .idle, let trigger = idleTrigger {
                loop?.remove(trigger.descriptor)
                idleTrigger = nil
            }
            if let fd = sockets.removeValue(forKey: condition) {
                loop?.remove(fd)
                Descriptor.close(fd)
            }
        }
    }
}
