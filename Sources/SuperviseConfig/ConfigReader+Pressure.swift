import SuperviseLifecycle

extension ConfigReader {
    /// The memory pressure keys of the top level (``ConfigFile/pressureKeys``).
    func readPressure(_ entry: TOMLTable.Entry, into settings: inout MemoryPressure.Settings,
                      _ fail: (String) -> UsageError) throws(UsageError) {
        let value = entry.value
        switch entry.key {
        case "memory-warnings":
            guard case .boolean(let flag) = value else { throw fail("expected true or false, found \(value.typeName)") }
            settings.warns = flag
        case "reclaim-on-pressure":
            switch value {
            case .boolean(let flag): settings.reclaimLevel = flag ? MemoryPressure.Settings.defaultReclaimLevel : nil
            case .string(let text) where text != MemoryPressure.Level.none.rawValue:
                settings.reclaimLevel = try choice(value, ReclaimLevel.self, fail).level
            default:
                throw fail("expected true, false or a level (moderate, low or critical), found \(Self.shown(value))")
            }
        case "pressure-stall": settings.stall = try duration(value, fail)
        case "pressure-window": settings.window = try duration(value, fail)
        case "pressure-low": settings.lowPercent = try percent(value, fail)
        case "pressure-critical": settings.criticalPercent = try percent(value, fail)
        default: settings.reclaimPause = try duration(value, fail)  // reclaim-pause
        }
    }

    /// A share of time in percent, 0 to 100.
    private func percent(_ value: TOMLValue, _ fail: (String) -> UsageError) throws(UsageError) -> Double {
        let number: Double? = switch value {
        case .integer(let whole): Double(whole)
        case .float(let fraction, _): fraction
        default: nil
        }
        guard let number, number.isFinite, number > 0, number <= 100 else {
            throw fail("expected a percentage of time stalled, more than 0 and at most 100, found \(Self.shown(value))")
        }
        return number
    }

    /// A value as the file wrote it, when it is short and plain; else its kind.
    private static func shown(_ value: TOMLValue) -> String {
        switch value {
        case .string(let text): "\"\(ControlText.excerpt(text))\""
        case .integer(let number): String(number)
        case .float(_, let text): ControlText.excerpt(text)
        default: value.typeName
        }
    }
}

/// The levels `reclaim-on-pressure` may name.
private enum ReclaimLevel: String, CaseIterable {
    case moderate
    case low
    case critical

    var level: MemoryPressure.Level {
        switch self {
        case .moderate: .moderate
        case .low: .low
        case .critical: .critical
        }
    }
}
