import SuperviseProtocol

extension ChildLifecycle {
    /// Memory pressure is now `level`: a child that runs is warned, once for each harder level.
    /// In the foreground it reads `memory-warning moderate|low|critical`; in the background
    /// (running, within its window or holding tasks) `memory-warning background`, `complete` when
    /// critical. A child that is launching, being frozen or frozen, terminating or without a
    /// process is told nothing: a frozen child is not thawed to be told (iOS does not wake a
    /// suspended app either: it is what memory is taken back from). `none` ends the pressure:
    /// the next one warns again from its first level. A child with more than
    /// ``unreadEventsLimit`` bytes of events unread is not warned (it is not reading fd 3): the
    /// warnings of pressure that comes and goes for days can't pile up for it.
    mutating func memoryPressure(_ level: MemoryPressure.Level) {
        guard level != .none else { return lastMemoryWarning = nil }
        guard unreadEventBytes <= Self.unreadEventsLimit, let warning = Self.memoryWarning(for: level, in: state) else { return }
        if let last = lastMemoryWarning, last.isForForeground == warning.isForForeground,
           warning.severity <= last.severity { return }
        lastMemoryWarning = warning
        send(.memoryWarning(warning))
    }

    /// The warning a child in `state` gets at `level`, if any.
    static func memoryWarning(for level: MemoryPressure.Level, in state: ChildState) -> MemoryWarning? {
        switch (state, level) {
        case (_, .none): nil
        case (.active, .moderate): .moderate
        case (.active, .low): .low
        case (.active, .critical): .critical
        case (.background, .critical): .complete
        case (.background, _): .background
        case (.launching, _), (.suspending, _), (.suspended, _), (.terminating, _), (.exited, _), (.notRunning, _): nil
        }
    }
}
