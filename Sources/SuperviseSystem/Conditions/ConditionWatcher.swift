import SuperviseLifecycle
import SuperviseSystemCall
import Glibc
import _SuperviseCShims

/// Watches the machine's conditions while a due scheduled task waits on them, and says when
/// the set that holds changes.
///
/// While no task waits it keeps no descriptor and no deadline, so an idle supervisor makes no
/// system call for it. While one waits (``wait(for:now:)``) it watches each waited condition
/// where the kernel announces changes — a CPU pressure trigger for `idle` (it fires as the
/// machine turns busy), a `NETLINK_KOBJECT_UEVENT` socket for `power` (a supply's uevent), an
/// rtnetlink socket for `network` (links, IPv4 and IPv6 routes) — and re-reads all of them
/// every ``recheckInterval`` besides, as pressure falling (the machine turning idle) has no
/// notification and a stand-in file none at all. The shell arms its timer at ``nextCheck``
/// and calls ``recheck(now:)`` there.
public final class ConditionWatcher {
    /// How often the waited conditions are re-read while a task waits.
    public static let recheckInterval: Duration = .seconds(5)
    /// The CPU pressure trigger's window: the kernel takes only whole multiples of 2 s from a
    /// process without `CAP_SYS_RESOURCE`.
    public static let idleTriggerWindow: Duration = .seconds(2)

    public let conditions: MachineConditions
    /// Called with the held set (of the waited conditions) when it changed.
    public var onChange: (Set<ScheduleCondition>) -> Void = { _ in }
    /// The conditions a task waits on now.
    public private(set) var waitedFor: Set<ScheduleCondition> = []
    /// When ``recheck(now:)`` is due; `nil` while no task waits.
    public private(set) var nextCheck: Instant?

    private let loop: EventLoop
    private var lastHeld: Set<ScheduleCondition> = []
    private var idleTrigger: PressureTrigger?
    private var sockets: [ScheduleCondition: Int32] = [:]

    public init(conditions: MachineConditions, loop: EventLoop) {
        self.conditions = conditions
        self.loop = loop
    }

    deinit {
        stopWatching(Set(ScheduleCondition.allCases))
    }

    /// Which of the waited conditions hold, as last read.
    public var held: Set<ScheduleCondition> { lastHeld }

    /// A due task waits on `conditions` (empty: none waits any more): watches what is new,
    /// stops watching what no task waits on, reads them at once and re-reads them every
    /// ``recheckInterval`` from `now`.
    public func wait(for conditions: Set<ScheduleCondition>, now: Instant) {
        stopWatching(waitedFor.subtracting(conditions))
        for condition in conditions.subtracting(waitedFor) { watch(condition) }
        waitedFor = conditions
        nextCheck = conditions.isEmpty ? nil : now + Self.recheckInterval
        lastHeld = read()
    }

    /// Re-reads the waited conditions at the re-check deadline, and sets the next one.
    public func recheck(now: Instant) {
        guard !waitedFor.isEmpty else { return }
        nextCheck = now + Self.recheckInterval
        report()
    }

    private func read() -> Set<ScheduleCondition> {
        Set(waitedFor.filter { (try? conditions.read($0).get()) == true })
    }

    /// Reads the waited conditions and tells ``onChange`` if the held set changed.
    private func report() {
        let held = read()
        guard held != lastHeld else { return }
        lastHeld = held
        onChange(held)
    }

    private func watch(_ condition: ScheduleCondition) {
        switch condition {
        case .idle:
            let sources = conditions.sources
            let window = Self.idleTriggerWindow
            // A trigger is written to the file: never to a stand-in that is a plain file.
            guard Self.isKernelFile(sources.cpuPressure) else { return }
            let trigger = PressureTrigger.open(
                path: sources.cpuPressure, scope: .some,
                stall: sources.idleRule.triggerStall(window: window), window: window)
            // Without a trigger (no PSI, or a stand-in file) the re-check alone tells.
            guard case .success(let trigger) = trigger else { return }
            idleTrigger = trigger
            _ = loop.add(trigger.descriptor, events: EventLoop.priority) { [unowned self] events in
                if events & EventLoop.closed != 0 { stopWatching([.idle]) }
                report()
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
        guard case .success(let fd) = valueOrErrno({ _supervise_netlink_open(`protocol`, groups) }) else { return }
        sockets[condition] = fd
        _ = loop.add(fd) { [unowned self] _ in
            // ENOBUFS (messages lost) means only that something changed; any other failure
            // leaves the socket to the re-check, which reads the files anyway.
            _ = valueOrErrno { _supervise_netlink_drain(fd) }
            report()
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
                loop.remove(trigger.descriptor)
                idleTrigger = nil
            }
            if let fd = sockets.removeValue(forKey: condition) {
                loop.remove(fd)
                Descriptor.close(fd)
            }
        }
    }
}
