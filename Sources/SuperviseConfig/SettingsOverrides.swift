import SuperviseLifecycle
import SuperviseSystem
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
    public var aware: Bool?
    public var launchTimeout: Duration?
    public var refreshTime: Duration?
    public var processingTime: Duration?

    /// Overrides that change nothing.
    public init(window: Duration? = nil, limit: Duration? = nil, expiryWarning: Duration? = nil,
                grace: Duration? = nil, freezeTimeout: Duration? = nil,
                onWindowOverrun: WindowOverrunAction? = nil, launch: LaunchState? = nil,
                freezer: FreezerChoice? = nil, stopSignal: Int32? = nil, maxOpenTasks: Int? = nil,
                aware: Bool? = nil, launchTimeout: Duration? = nil, refreshTime: Duration? = nil,
                processingTime: Duration? = nil) {
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
        self.aware = aware
        self.launchTimeout = launchTimeout
        self.refreshTime = refreshTime
        self.processingTime = processingTime
    }

    /// These overrides, then `later`'s over them: a value `later` gives wins.
    public func merged(with later: SettingsOverrides) -> SettingsOverrides {
        SettingsOverrides(window: later.window ?? window, limit: later.limit ?? limit,
                          expiryWarning: later.expiryWarning ?? expiryWarning, grace: later.grace ?? grace,
                          freezeTimeout: later.freezeTimeout ?? freezeTimeout,
                          onWindowOverrun: later.onWindowOverrun ?? onWindowOverrun, launch: later.launch ?? launch,
                          freezer: later.freezer ?? freezer, stopSignal: later.stopSignal ?? stopSignal,
                          maxOpenTasks: later.maxOpenTasks ?? maxOpenTasks, aware: later.aware ?? aware,
                          launchTimeout: later.launchTimeout ?? launchTimeout,
                          refreshTime: later.refreshTime ?? refreshTime,
                          processingTime: later.processingTime ?? processingTime)
    }

    /// The settings these overrides give: the contract's defaults with every value given here.
    /// A window or expiry warning left at its default is fitted to the limit given: the window
    /// becomes min(5 s, limit) and the expiry warning min(5 s, limit / 2), so a short `--limit`
    /// works alone. Values given are kept as given (and `problem` judges them).
    public func resolved() -> (settings: LifecycleSettings, freezer: FreezerChoice) {
        var settings = LifecycleSettings(), freezer = FreezerChoice.auto
        apply(to: &settings, freezer: &freezer)
        if window == nil { settings.window = min(settings.window, settings.limit) }
        if expiryWarning == nil { settings.expiryWarning = min(settings.expiryWarning, settings.limit / 2) }
        return (settings, freezer)
    }

    /// Replaces in `settings` and `freezer` every value given here.
    private func apply(to settings: inout LifecycleSettings, freezer: inout FreezerChoice) {
        if let window { settings.window = window }
        if let limit { settings.limit = limit }
        if let expiryWarning { settings.expiryWarning = expiryWarning }
        if let grace { settings.grace = grace }
        if let freezeTimeout { settings.freezeTimeout = freezeTimeout }
        if let onWindowOverrun { settings.onWindowOverrun = onWindowOverrun }
        if let launch { settings.launch = launch }
        if let stopSignal { settings.stopSignal = stopSignal }
        if let maxOpenTasks { settings.maxOpenTasks = maxOpenTasks }
        if let aware { settings.aware = aware }
        if let launchTimeout { settings.launchTimeout = launchTimeout }
        if let refreshTime { settings.refreshTime = refreshTime }
        if let processingTime { settings.processingTime = processingTime }
        if let choice = self.freezer { freezer = choice }
    }
}
