import ArgumentParser

/// The options of scheduled background tasks (`schedule` requests and config schedules).
struct ScheduleOptions: ParsableArguments {
    @Option(name: .customLong("refresh-time"), parsing: .unconditional, help: ArgumentHelp("The time a scheduled refresh task has. (default 30s)", valueName: "duration"),
            transform: parseDuration)
    var refreshTime: Duration?

    @Option(name: .customLong("processing-time"), parsing: .unconditional, help: ArgumentHelp("The time a scheduled processing task has. (default 5m)", valueName: "duration"),
            transform: parseDuration)
    var processingTime: Duration?
}
