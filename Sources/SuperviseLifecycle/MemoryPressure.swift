/// How hard memory is pressed, decided from the kernel's pressure stall figures
/// (``PressureStall``) when the pressure trigger fires, and what follows: the level every child
/// hears of (``LifecycleInput/memoryPressure(_:)``) and, under `--reclaim-on-pressure`, the
/// suspended children reclaimed one at a time with a pause between, as Android's low-memory
/// killer does. Pure: every input comes with its `Instant`.
public struct MemoryPressure: Sendable {
    /// Ordered: `none` < `moderate` < `low` < `critical`.
    public enum Level: String, Comparable, Sendable, CaseIterable {
        case none
        case moderate
        case low
        case critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
        private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    }

    public struct Settings: Equatable, Sendable {
        /// Children are warned (`--memory-warnings`); reclaim on pressure warns them too.
        public var warns: Bool
        /// The trigger: memory is pressed (`moderate`) once tasks stalled `stall` within `window`.
        public var stall: Duration
        public var window: Duration
        /// The share of time (percent) some task stalled on memory from which it is `low`, and
        /// from which it is `critical`.
        public var lowPercent: Double
        public var criticalPercent: Double
        /// The level from which suspended children are reclaimed; `nil`: never for pressure.
        public var reclaimLevel: Level?
        /// How long after a reclaim pressure is given to fall before the next.
        public var reclaimPause: Duration

        /// Whether pressure is watched at all: for warnings or for reclaim. Off by default, so
        /// that a run's events stay the same whatever else loads the machine.
        public var isWatched: Bool { warns || reclaimLevel != nil }

        /// The level `--reclaim-on-pressure` reclaims from, unless the config names another.
        public static let defaultReclaimLevel = Level.low

        /// Not watched; 150 ms in 2 s (7.5 %), low from 20 %, critical from 40 %, no reclaim, a pause of one window.
        public static let standard = Settings(warns: false, stall: .milliseconds(150), window: .seconds(2), lowPercent: 20,
                                              criticalPercent: 40, reclaimLevel: nil, reclaimPause: .seconds(2))

        /// Why the kernel or the rules can't take these settings, or `nil`.
        public var problem: String? {
            if window < .milliseconds(500) || window > .seconds(10) {
                return "pressure-window must be from 500ms to 10s (the kernel's range)"
            }
            if stall <= .zero || stall > window { return "pressure-stall must be more than 0 and at most pressure-window" }
            guard lowPercent > 0, lowPercent <= criticalPercent, criticalPercent <= 100 else {
                return "pressure-low and pressure-critical must be percentages with 0 < low <= critical <= 100"
            }
            return nil
        }

        public init(warns: Bool, stall: Duration, window: Duration, lowPercent: Double, criticalPercent: Double,
                    reclaimLevel: Level?, reclaimPause: Duration) {
            self.warns = warns
            self.stall = stall
            self.window = window
            self.lowPercent = lowPercent
            self.criticalPercent = criticalPercent
            self.reclaimLevel = reclaimLevel
            self.reclaimPause = reclaimPause
        }
    }

    /// The figures a level was decided from, as the log and the report say them.
    public struct Reading: Equatable, Sendable, CustomStringConvertible {
        public var level: Level
        /// Percent of the time since the reading before (at most ``Settings/window`` ago when the
        /// trigger keeps firing) in which some task stalled on memory.
        public var recentPercent: Double
        public var stall: PressureStall

        public var description: String {
            var text = "\(level.rawValue): some \(Self.percent(recentPercent)) recently, avg10 \(Self.percent(stall.some.avg10))"
            if let full = stall.full { text += ", full avg10 \(Self.percent(full.avg10))" }
            return text
        }

        /// `12.3%`; a figure past 100 (which no kernel writes) is said as 100, never trapped on.
        static func percent(_ value: Double) -> String {
            let tenths = Int((min(max(value, 0), 100) * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)%"
        }
    }

    /// A change of level, as the report lists it: when, to what, and why (the figures, or how
    /// long the trigger was quiet).
    public struct Change: Equatable, Sendable {
        public var at: Instant
        public var level: Level
        public var why: String
    }

    /// What the shell does, in order.
    public enum Action: Equatable, Sendable {
        /// Tell every child the level (``LifecycleInput/memoryPressure(_:)``); its state decides
        /// what it is sent.
        case level(Level)
        /// Reclaim this suspended child (its place in the config order), for this reason.
        case reclaim(order: Int, reason: String)
        /// A line for the supervisor's log.
        case log(String)
    }

    public let settings: Settings
    /// The level now: `none` once the trigger has not fired for two windows.
    public private(set) var level: Level = .none
    /// The last figures read: what a reclaim gives as its reason.
    private var lastReading: Reading?
    /// Every change of level: the first and the last ``changeLimit``.
    public private(set) var changes = HeadTailBuffer<Change>(headLimit: changeLimit, tailLimit: changeLimit)
    public static let changeLimit = 100
    private var lastTotal: (total: Duration, at: Instant)?
    private var lastFiredAt: Instant?
    private var lastReclaimAt: Instant?
    private var pauseEnd: Instant?

    public init(settings: Settings) {
        self.settings = settings
    }

    /// When a ``tick`` has something to do: the pressure eases, or a reclaim's pause ends.
    public var nextDeadline: Instant? {
        earliest(pauseEnd, level == .none ? nil : lastFiredAt.map { $0 + quietToEase })
    }

    /// How long the trigger stays quiet before the pressure is over: two windows, since under
    /// pressure it fires about once a window.
    private var quietToEase: Duration { settings.window + settings.window }

    /// The figures when the trigger was armed: what the first firing is measured from.
    public mutating func armed(_ stall: PressureStall, at now: Instant) {
        lastTotal = (stall.some.total, now)
    }

    /// The trigger fired and the file read `stall`: decide the level, tell the children when it
    /// changed, then reclaim if it calls for it. `candidates` are the suspended children.
    public mutating func fired(_ stall: PressureStall, at now: Instant,
                               candidates: [ReclaimPlan.Candidate]) -> [Action] {
        let reading = Reading(level: level(for: stall, at: now), recentPercent: recentPercent(stall, at: now),
                              stall: stall)
        lastTotal = (stall.some.total, now)
        lastFiredAt = now
        lastReading = reading
        var actions: [Action] = []
        if reading.level != level {
            level = reading.level
            changes.append(Change(at: now, level: level, why: reading.description))
            actions += [.log("memory pressure \(reading)"), .level(level)]
        }
        return actions + reclaimIfCalledFor(now, candidates: candidates)
    }

    /// Time has passed: the pressure eases when the trigger has been quiet for two windows; a
    /// reclaim's pause ends.
    public mutating func tick(at now: Instant, candidates: [ReclaimPlan.Candidate]) -> [Action] {
        var actions: [Action] = []
        if let pauseEnd, now >= pauseEnd { self.pauseEnd = nil }
        if level != .none, let lastFiredAt, now >= lastFiredAt + quietToEase {
            level = .none
            let why = "eased: the trigger was quiet for \(quietToEase.formatted)"
            changes.append(Change(at: now, level: .none, why: why))
            actions += [.log("memory pressure \(why)"), .level(.none)]
        }
        return actions + reclaimIfCalledFor(now, candidates: candidates)
    }

    /// One reclaim, the first in ``ReclaimPlan``'s order, when the level calls for it, no pause
    /// runs, and the trigger fired since the last reclaim (pressure read after it, not before).
    private mutating func reclaimIfCalledFor(_ now: Instant, candidates: [ReclaimPlan.Candidate]) -> [Action] {
        guard let reclaimLevel = settings.reclaimLevel, level >= reclaimLevel, pauseEnd == nil,
              let lastFiredAt, lastReclaimAt.map({ lastFiredAt > $0 }) ?? true,
              let victim = ReclaimPlan.order(candidates).first,
              let candidate = candidates.first(where: { $0.order == victim }), let lastReading
        else { return [] }
        lastReclaimAt = now
        pauseEnd = now + settings.reclaimPause
        let reason = "reclaimed: memory pressure \(lastReading) (reclaims at \(reclaimLevel.rawValue)); "
            + "suspended \((now - candidate.suspendedSince).formatted), \(candidate.bytes / 1024) KiB"
        return [.reclaim(order: victim, reason: reason)]
    }

    private func level(for stall: PressureStall, at now: Instant) -> Level {
        let percent = max(recentPercent(stall, at: now), stall.some.avg10)
        if percent >= settings.criticalPercent { return .critical }
        if percent >= settings.lowPercent { return .low }
        return .moderate
    }

    /// Percent of the time since the reading before in which some task stalled (0 without one).
    private func recentPercent(_ stall: PressureStall, at now: Instant) -> Double {
        guard let lastTotal, now > lastTotal.at, stall.some.total >= lastTotal.total else { return 0 }
        let share = (stall.some.total - lastTotal.total) / (now - lastTotal.at)
        return min(100, share * 100)
    }
}
