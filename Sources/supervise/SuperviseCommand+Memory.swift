import ArgumentParser
import SuperviseConfig
import SuperviseLifecycle

extension SuperviseCommand {
    /// `--suspended-memory` in bytes, if given.
    func memoryBudget() throws(ValidationError) -> UInt64? {
        guard let suspendedMemory else { return nil }
        do throws(UsageError) {
            return try MemorySize.parse(suspendedMemory)
        } catch {
            throw ValidationError("--suspended-memory: \(error.message)")
        }
    }

    /// The config's memory pressure settings; `--memory-warnings` turns warnings on,
    /// `--reclaim-on-pressure` reclaim (at the config's level if it names one).
    func memoryPressure(configured: MemoryPressure.Settings) -> MemoryPressure.Settings {
        var settings = configured
        if memoryWarnings { settings.warns = true }
        if reclaimOnPressure, settings.reclaimLevel == nil { settings.reclaimLevel = MemoryPressure.Settings.defaultReclaimLevel }
        return settings
    }
}
