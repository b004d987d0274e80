/// Identifies a background task begun with
/// ``SuperviseApplication/beginBackgroundTask(withName:expirationHandler:)``, as
/// `UIBackgroundTaskIdentifier` does.
public struct BackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// No task: returned when no assertion can be taken (not running under `supervise`, or
    /// the supervisor is gone). Ending it does nothing.
    public static let invalid = BackgroundTaskIdentifier(rawValue: 0)

    public var description: String { rawValue == 0 ? "invalid" : String(rawValue) }
}
