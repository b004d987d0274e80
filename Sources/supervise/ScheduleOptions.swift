import ArgumentParser
import SuperviseSystem

/// The options of scheduled background tasks (`schedule` requests and config schedules).
struct ScheduleOptions: ParsableArguments {
    @Option(name: .customLong("refresh-time"), parsing: .unconditional, help: ArgumentHelp("The time a scheduled refresh task has. (default 30s)", valueName: "duration"),
            transform: parseDuration)
    var refreshTime: Duration?

    @Option(name: .customLong("processing-time"), parsing: .unconditional, help: ArgumentHelp("The time a scheduled processing task has. (default 5m)", valueName: "duration"),
            transform: parseDuration)
    var processingTime: Duration?

    @Option(name: .customLong("cpu-pressure"), help: ArgumentHelp("Idle: read this, not /proc/pressure/cpu.", valueName: "file"))
    var cpuPressure: String?

    @Option(name: .customLong("power-supplies"), help: ArgumentHelp("Power: read this, not /sys/class/power_supply.", valueName: "dir"))
    var powerSupplies: String?

    @Option(name: .customLong("routes"), help: ArgumentHelp("Network: read its routes here, not /proc/net.", valueName: "dir"))
    var routes: String?

    /// Where the conditions of scheduled tasks are read: the kernel's files unless told.
    var conditionSources: ConditionSources {
        var sources = ConditionSources()
        if let cpuPressure { sources.cpuPressure = cpuPressure }
        if let powerSupplies { sources.powerSupplies = powerSupplies }
        if let routes { (sources.ipv4Routes, sources.ipv6Routes) = (routes + "/route", routes + "/ipv6_route") }
        return sources
    }
}
