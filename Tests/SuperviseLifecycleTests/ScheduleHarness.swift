import SuperviseProtocol
@testable import SuperviseLifecycle

/// Drives one ``ChildCore`` with scheduled tasks on a virtual clock, as the shell would.
struct ScheduleHarness: VirtualClockHarness {
    var core: ChildCore
    var now = Instant.zero
    var log: [LifecycleAction] = []

    init(autostart: Bool = true, schedules: [ConfiguredSchedule] = [],
         _ configure: (inout LifecycleSettings) -> Void = { _ in }) {
        var settings = LifecycleSettings()
        configure(&settings)
        core = ChildCore(settings: settings, restart: RestartRules(), freezerNotifies: false, autostart: autostart,
                         schedules: schedules, at: .zero)
    }

    var state: ChildState { core.status.state }

    mutating func decide(_ input: LifecycleInput) -> [LifecycleAction] { core.handle(input, at: now).actions }

    /// Moves the clock to `seconds` after the start, ticking at every deadline on the way; a
    /// freeze asked for is verified at once.
    mutating func advance(to seconds: Double) {
        let target = Instant(nanoseconds: Int64(seconds * 1e9))
        while let deadline = core.status.nextDeadline, deadline <= target {
            now = max(now, deadline)
            if handle(.tick).contains(.freeze) { handle(.freezeVerified) }
        }
        now = max(now, target)
    }

    /// Launched, aware, moved to the background and frozen: suspended at 0 s.
    static func suspended(schedules: [ConfiguredSchedule] = [],
                          _ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = Self(schedules: schedules, configure)
        harness.handle(.launched)
        harness.request(.hello)
        harness.handle(.background)
        harness.request(.done(seq: 1))
        harness.handle(.freezeVerified)
        harness.take()
        return harness
    }

    static func schedule(_ task: String, _ kind: ScheduledTaskKind = .refresh, earliest seconds: Int64 = 0,
                         requires: Set<ScheduleCondition> = []) -> Request {
        .schedule(ScheduleRequest(id: id(task), kind: kind, earliestMS: seconds * 1000, requires: requires))
    }
}
