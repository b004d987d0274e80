import SuperviseProtocol

/// What an aware child that misses its window gets.
public enum WindowOverrunAction: String, Sendable, CaseIterable {
    case kill
    case suspend
}

/// The timing rules of one child (contract defaults).
public struct LifecycleSettings: Equatable, Sendable {
    /// The did-enter-background window; zero means no window.
    public var window: Duration = .seconds(5)
    /// The background time limit while tasks are open.
    public var limit: Duration = .seconds(30)
    /// How long before the limit each open task gets `expire`.
    public var expiryWarning: Duration = .seconds(5)
    /// How long a terminated child has to exit before SIGKILL.
    public var grace: Duration = .seconds(5)
    /// How long a freeze may take to be verified.
    public var freezeTimeout: Duration = .seconds(1)
    public var onWindowOverrun: WindowOverrunAction = .kill
    public var launch: LaunchState = .foreground
    /// The signal an unaware child gets on termination.
    public var stopSignal: Int32 = 15
    /// The most task assertions one child may hold at once.
    public var maxOpenTasks: Int = 256
    /// The child is expected to speak the protocol (`--aware`): it stays `launching` until its
    /// `hello`, and is killed for a launch violation if none comes within ``launchTimeout``.
    public var aware = false
    /// How long an aware child has to say `hello` after its launch (iOS's launch watchdog: 20 s).
    public var launchTimeout: Duration = .seconds(20)
    /// The time a scheduled `refresh` task has (BGAppRefreshTask's ~30 s).
    public var refreshTime: Duration = .seconds(30)
    /// The time a scheduled `processing` task has.
    public var processingTime: Duration = .seconds(300)

    public init() {}

    /// The first rule these settings break, as one line for the user, or `nil`.
    public var problem: String? {
        for (name, value) in [("window", window), ("limit", limit), ("expiry-warning", expiryWarning),
                              ("grace", grace), ("freeze-timeout", freezeTimeout)] where value < .zero {
            return "--\(name) must not be negative"
        }
        if launchTimeout <= .zero { return "--launch-timeout must be longer than 0" }
        // Said of the limit itself: the expiry warning, whatever it is, can't be shorter than 0.
        if limit == .zero { return "--limit must be longer than 0" }
        if window > limit {
            return "--window (\(window.formatted)) must not be longer than --limit (\(limit.formatted))"
        }
        if expiryWarning >= limit {
            return "--expiry-warning (\(expiryWarning.formatted)) must be shorter than --limit (\(limit.formatted))"
        }
        for (name, time) in [("refresh-time", refreshTime), ("processing-time", processingTime)]
        where time <= expiryWarning {
            return "--\(name) (\(time.formatted)) must be longer than --expiry-warning (\(expiryWarning.formatted))"
        }
        if maxOpenTasks < 1 { return "the open-task limit must be at least 1" }
        return nil
    }
}

extension Duration {
    /// Seconds with up to three decimals, e.g. `2.5s`.
    public var formatted: String {
        let ms = wholeMilliseconds
        let whole = ms / 1000, frac = abs(ms % 1000)
        if frac == 0 { return "\(whole)s" }
        var digits = String(frac)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(ms < 0 && whole == 0 ? "-" : "")\(whole).\(digits)s"
    }
}
