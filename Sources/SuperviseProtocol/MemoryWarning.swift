/// How hard memory is pressed, as a child is told it: `memory-warning LEVEL`. A running
/// (foreground) child gets `moderate`, `low` or `critical`, as Android's `onTrimMemory`
/// `TRIM_MEMORY_RUNNING_*`; a child running in the background gets `background`, then
/// `complete` when suspended children are about to be reclaimed (`TRIM_MEMORY_BACKGROUND`,
/// `TRIM_MEMORY_COMPLETE`). Any level is UIKit's `didReceiveMemoryWarning`: free what you can.
public enum MemoryWarning: String, Sendable, CaseIterable {
    case moderate
    case low
    case critical
    case background
    case complete

    /// Whether the level is one a foreground child is told.
    public var isForForeground: Bool { self == .moderate || self == .low || self == .critical }

    /// How hard, within the levels of the same kind (foreground or background): higher is harder.
    public var severity: Int {
        switch self {
        case .moderate, .background: 1
        case .low: 2
        case .critical, .complete: 3
        }
    }
}
