import Testing
@testable import SuperviseLifecycle

/// Levels from the pressure figures, when the pressure eases, and reclaim one child at a time
/// with a pause, in ReclaimPlan's order; on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct MemoryPressureTests {
    private var pressure: MemoryPressure
    private var now = Instant.zero
    /// The `some` total the kernel shows, advanced by ``stall(_:over:)``.
    private var total = Duration.zero

    init() {
        var settings = MemoryPressure.Settings.standard
        settings.reclaimLevel = .low
        pressure = MemoryPressure(settings: settings)
        pressure.armed(figures(), at: now)
    }

    private func figures(avg10: Double = 0) -> PressureStall {
        PressureStall(some: .init(avg10: avg10, avg60: 0, avg300: 0, total: total), full: nil)
    }

    /// `stalled` of the next `seconds` stalled on memory, then the trigger fires.
    private mutating func fire(stalled: Double, over seconds: Double, avg10: Double = 0,
                               _ candidates: [ReclaimPlan.Candidate] = []) -> [MemoryPressure.Action] {
        now = now + .milliseconds(Int64(seconds * 1000))
        total = total + .milliseconds(Int64(stalled * 1000))
        return pressure.fired(figures(avg10: avg10), at: now, candidates: candidates)
    }

    private mutating func advance(by seconds: Double, _ candidates: [ReclaimPlan.Candidate] = []) -> [MemoryPressure.Action] {
        now = now + .milliseconds(Int64(seconds * 1000))
        return pressure.tick(at: now, candidates: candidates)
    }

    private func levels(_ actions: [MemoryPressure.Action]) -> [MemoryPressure.Level] {
        actions.compactMap { if case .level(let level) = $0 { level } else { nil } }
    }

    private func reclaimed(_ actions: [MemoryPressure.Action]) -> [Int] {
        actions.compactMap { if case .reclaim(let order, _) = $0 { order } else { nil } }
    }

    private static func suspended(_ order: Int, since seconds: Int64, priority: Int = 0) -> ReclaimPlan.Candidate {
        ReclaimPlan.Candidate(order: order, suspendedSince: Instant.zero + .seconds(seconds), priority: priority,
                              bytes: 1 << 20)
    }

    @Test mutating func theLevelIsTheRecentStallShareAgainstTheThresholds() {
        #expect(levels(fire(stalled: 0.15, over: 2)) == [.moderate], "the trigger fired: 7.5 % is moderate")
        #expect(levels(fire(stalled: 0.5, over: 2)) == [.low], "25 %")
        #expect(levels(fire(stalled: 0.9, over: 2)) == [.critical], "45 %")
        #expect(levels(fire(stalled: 1.0, over: 2)) == [], "still critical: the children are not told again")
        #expect(levels(fire(stalled: 0.2, over: 2)) == [.moderate], "10 %: it fell")
    }

    @Test mutating func everyChangeIsKeptForTheReportWithItsFigures() {
        _ = fire(stalled: 0.15, over: 2)
        _ = fire(stalled: 0.16, over: 2)
        _ = fire(stalled: 0.9, over: 2)
        _ = advance(by: 4)
        #expect(pressure.changes.elements.map(\.level) == [.moderate, .critical, .none], "a reading at the same level is no change")
        #expect(pressure.changes.elements.map(\.at) == [Instant.zero + .seconds(2), .zero + .seconds(6), .zero + .seconds(10)])
        #expect(pressure.changes.elements.map(\.why) == ["moderate: some 7.5% recently, avg10 0.0%",
                                                         "critical: some 45.0% recently, avg10 0.0%",
                                                         "eased: the trigger was quiet for 4s"])
    }

    @Test mutating func avg10CountsWhenTheShareSinceALongQuietIsDiluted() {
        #expect(levels(fire(stalled: 0.9, over: 600, avg10: 41)) == [.critical])
    }

    @Test mutating func aFigureNoKernelWritesIsCriticalAndTrapsNothing() {
        #expect(fire(stalled: 0, over: 2, avg10: 1e300) == [.log("memory pressure critical: some 0.0% recently, avg10 100.0%"),
                                                            .level(.critical)])
    }

    @Test mutating func itEasesWhenTheTriggerIsQuietForTwoWindows() {
        _ = fire(stalled: 0.5, over: 2)
        #expect(pressure.nextDeadline == now + .seconds(4))
        #expect(levels(advance(by: 3.9)) == [])
        #expect(levels(advance(by: 0.1)) == [.none])
        #expect(pressure.level == .none)
        #expect(pressure.nextDeadline == nil, "an idle supervisor has nothing to wake for")
    }

    @Test mutating func reclaimsOneAtATimeOldestFirstWithAPauseAndOnlyOnFreshFigures() {
        // Listed: 0 suspended at 5 s, 1 at 1 s (longest), 2 at 1 s with a lower priority.
        var candidates = [Self.suspended(0, since: 5), Self.suspended(1, since: 1), Self.suspended(2, since: 1, priority: -1)]
        let first = fire(stalled: 0.5, over: 10, avg10: 25, candidates)
        #expect(levels(first) == [.low])
        #expect(reclaimed(first) == [2], "the lower priority of the two suspended longest")
        #expect(first.firstIndex(of: .level(.low))! < first.firstIndex { if case .reclaim = $0 { true } else { false } }!,
                "the children are warned before anyone is reclaimed")
        candidates.removeAll { $0.order == 2 }
        #expect(reclaimed(fire(stalled: 1, over: 1.5, candidates)) == [], "within the 2 s pause: nothing")
        #expect(reclaimed(advance(by: 0.5, candidates)) == [1], "the pause is over and the trigger fired during it")
        candidates.removeAll { $0.order == 1 }
        #expect(reclaimed(advance(by: 2, candidates)) == [], "pause over, but no figures read since the reclaim")
        #expect(reclaimed(fire(stalled: 0.05, over: 0.5, candidates)) == [], "fresh figures, but only moderate now")
        #expect(reclaimed(fire(stalled: 1, over: 2, candidates)) == [0])
    }

    @Test mutating func theReasonSaysTheFigures() {
        let actions = fire(stalled: 0.9, over: 2, avg10: 12.345, [Self.suspended(0, since: 1)])
        guard case .reclaim(_, let reason) = actions.last else {
            Issue.record("no reclaim in \(actions)")
            return
        }
        #expect(reason == "reclaimed: memory pressure critical: some 45.0% recently, avg10 12.3% (reclaims at low); suspended 1s, 1024 KiB")
    }

    @Test func withoutReclaimOnPressureNothingIsReclaimed() {
        var pressure = MemoryPressure(settings: .standard)
        pressure.armed(PressureStall(some: .init(avg10: 0, avg60: 0, avg300: 0, total: .zero), full: nil), at: .zero)
        let stall = PressureStall(some: .init(avg10: 90, avg60: 0, avg300: 0, total: .seconds(2)), full: nil)
        let actions = pressure.fired(stall, at: .zero + .seconds(2), candidates: [Self.suspended(0, since: 0)])
        #expect(actions == [.log("memory pressure critical: some 100.0% recently, avg10 90.0%"), .level(.critical)])
    }
}
