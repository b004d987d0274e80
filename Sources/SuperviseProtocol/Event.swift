/// Where a child starts: `did-finish-launching foreground|background`.
public enum LaunchState: String, Sendable, CaseIterable {
    case foreground
    case background
}

/// A lifecycle event the supervisor writes to a child (protocol 1).
public enum Event: Equatable, Sendable {
    /// `reclaimed`: the supervisor reclaimed the run before this one (`… background reclaimed`).
    case didFinishLaunching(LaunchState, reclaimed: Bool = false)
    case didBecomeActive
    case willResignActive
    case didEnterBackground(seq: UInt64, windowMS: Int64, limitMS: Int64)
    case event(seq: UInt64, kind: String, text: String?)
    case expire(TaskID)
    /// `task ID refresh|processing LIMIT_MS`: the background entry just announced was made for
    /// scheduled task `ID`, which has `limitMS` from now.
    case task(id: TaskID, kind: ScheduledTaskKind, limitMS: Int64)
    case willEnterForeground
    case willTerminate(graceMS: Int64)
    /// `memory-warning LEVEL`: memory is under pressure; free what you can.
    case memoryWarning(MemoryWarning)
    case error(RequestError)
}
