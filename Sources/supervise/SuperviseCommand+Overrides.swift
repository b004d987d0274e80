import SuperviseConfig

extension SuperviseCommand {
    /// The lifecycle settings the command line gives, each `nil` when not given.
    var overrides: SettingsOverrides {
        var overrides = SettingsOverrides()
        overrides.window = window
        overrides.limit = limit
        overrides.expiryWarning = expiryWarning
        overrides.grace = grace
        overrides.freezeTimeout = freezeTimeout
        overrides.onWindowOverrun = onWindowOverrun
        overrides.launch = launch
        overrides.freezer = freezer
        overrides.stopSignal = stopSignal
        overrides.maxOpenTasks = maxTasks
        overrides.aware = aware ? true : nil
        overrides.launchTimeout = launchTimeout
        overrides.refreshTime = scheduling.refreshTime
        overrides.processingTime = scheduling.processingTime
        return overrides
    }
}
