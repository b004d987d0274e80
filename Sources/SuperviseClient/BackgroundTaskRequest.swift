import SuperviseProtocol

/// A request to be woken in the background for deferrable work, as `BGTaskRequest`: submit
/// it with ``BackgroundTaskScheduler/submit(_:)``.
public protocol BackgroundTaskRequest: Sendable {
    /// The identifier registered with
    /// ``BackgroundTaskScheduler/register(forTaskWithIdentifier:launchHandler:)``.
    var identifier: String { get }
    /// How long from the submission the task must not start; `nil` for as soon as possible.
    /// The supervisor may start it later (`BGTaskRequest.earliestBeginDate`, as a duration).
    var earliestBeginDate: Duration? { get }
    /// The `schedule` request's kind.
    var kind: ScheduledTaskKind { get }
    /// The conditions the task waits for.
    var requiredConditions: Set<ScheduleCondition> { get }
}

/// A short task to bring the process's content up to date (`BGAppRefreshTaskRequest`):
/// `schedule ID refresh`.
public struct AppRefreshTaskRequest: BackgroundTaskRequest {
    public var identifier: String
    public var earliestBeginDate: Duration?

    public init(identifier: String, earliestBeginDate: Duration? = nil) {
        self.identifier = identifier
        self.earliestBeginDate = earliestBeginDate
    }

    public var kind: ScheduledTaskKind { .refresh }
    public var requiredConditions: Set<ScheduleCondition> { [] }
}

/// A longer, deferrable task that may wait for the machine's conditions
/// (`BGProcessingTaskRequest`): `schedule ID processing requires=…`.
public struct ProcessingTaskRequest: BackgroundTaskRequest {
    public var identifier: String
    public var earliestBeginDate: Duration?
    /// Run only on external power (or on a machine with no battery): `power`.
    public var requiresExternalPower = false
    /// Run only with a network, a default route through a link that is up: `network`.
    public var requiresNetworkConnectivity = false
    /// Run only while the machine is idle (its CPU pressure is low): `idle`.
    public var requiresIdle = false

    public init(identifier: String, earliestBeginDate: Duration? = nil) {
        self.identifier = identifier
        self.earliestBeginDate = earliestBeginDate
    }

    public var kind: ScheduledTaskKind { .processing }

    public var requiredConditions: Set<ScheduleCondition> {
        var conditions: Set<ScheduleCondition> = []
        if requiresIdle { conditions.insert(.idle) }
        if requiresExternalPower { conditions.insert(.power) }
        if requiresNetworkConnectivity { conditions.insert(.network) }
        return conditions
    }
}
