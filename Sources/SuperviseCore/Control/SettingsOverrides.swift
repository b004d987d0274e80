import SuperviseProtocol

/// Settings given at one level (config top level, command line, a child's table),
/// each `nil` when that level leaves it alone.
public struct SettingsOverrides: Equatable, Sendable {
    public var window: Duration?
    public var limit: Duration?
    public var expiryWarning: Duration?
    public var grace: Duration?
    public var freezeTimeout: Duration?
    public var onWindowOverrun: WindowOverrunAction?
    public var launch: LaunchState?
    public var freezer: FreezerChoice?
    public var stopSignal: Int32?
    public var maxOpenTasks: Int?

    /// Overrides that change nothing.
    public init(window: Duration? = nil, limit: Duration? = nil, expiryWarning: Duration? = nil,
                grace: Duration? = nil, freezeTimeout: Duration? = nil,
                onWindowOverrun: WindowOverrunAction? = nil, launch: LaunchState? = nil,
                freezer: FreezerChoice? = nil, stopSignal: Int32? = nil, maxOpenTasks: Int? = nil) {
        self.window = window
        self.limit = limit
        self.expiryWarning = expiryWarning
        self.grace = grace
        self.freezeTimeout = freezeTimeout
        self.onWindowOverrun = onWindowOverrun
        self.launch = launch
        self.freezer = freezer
        self.stopSignal = stopSignal
        self.maxOpenTasks = maxOpenTasks
    }

    /// Replaces in `settings` and `freezer` every value given here.
    public func apply(to settings: inout LifecycleSettings, freezer: inout FreezerChoice) {
        if let window { settings.window = window }
        if let limit { settings.limit = limit }
        if let expiryWarning { settings.expiryWarning = expiryWarning }
        if let grace { settings.grace = grace }
        if let freezeTimeout { settings.freezeTimeout = freezeTimeout }
        if let onWindowOverrun { settings.onWindowOverrun = onWindowOverrun }
        if let launch { settings.launch = launch }
        if let stopSignal { settings.stopSignal = stopSignal }
        if let maxOpenTasks { settings.maxOpenTasks = maxOpenTasks }
        if let choice = self.freezer { freezer = choice }
    }
}
