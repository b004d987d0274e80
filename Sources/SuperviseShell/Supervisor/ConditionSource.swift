import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem

/// What tells the supervisor which conditions of scheduled tasks hold on the machine (`idle`,
/// `power`, `network`), and watches them while a due task waits for one. Without a source every
/// condition holds. The source decides nothing about tasks: the supervisor hands each child's
/// core what it holds (``LifecycleInput/conditions(_:)``) whenever that changes.
public protocol ConditionSource: AnyObject {
    /// The conditions that hold, as last read.
    var held: Set<ScheduleCondition> { get }
    /// Adds the source's descriptors (PSI triggers, netlink, inotify) to `loop`; their handlers
    /// read the conditions again and then call `changed`.
    func attach(to loop: EventLoop, changed: @escaping () -> Void)
    /// Due tasks wait for `awaited` (empty: none does). The source watches those, and returns
    /// when it must be asked to ``look(at:)`` — a poll, for what the kernel does not notify —
    /// or `nil`: with nothing awaited it polls nothing, so an idle supervisor makes no call.
    func watch(_ awaited: Set<ScheduleCondition>, at now: Instant) -> Instant?
    /// The instant ``watch(_:at:)`` returned was reached: read the conditions again.
    func look(at now: Instant)
}

/// The supervisor's side of a ``ConditionSource``: what it last told the children and when the
/// source asked to look again.
final class ConditionFeed {
    let source: any ConditionSource
    /// What the children's cores were told last (they start out holding every condition).
    var told = Set(ScheduleCondition.allCases)
    /// When the source asked to look again, if it did.
    var lookAt: Instant?

    init(source: any ConditionSource) {
        self.source = source
    }
}
