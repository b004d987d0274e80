import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// Who is told of memory pressure, and what (protocol.md's table, row *memory pressure*): on a
/// virtual clock, one child in each state.
@Suite(.timeLimit(.minutes(5))) struct MemoryWarningRuleTests {
    @Test(arguments: ChildState.allCases)
    func eachStateIsToldWhatTheTableSays(_ state: ChildState) {
        let expected: [MemoryPressure.Level: MemoryWarning?] = switch state {
        case .active: [.moderate: .moderate, .low: .low, .critical: .critical]
        case .background: [.moderate: .background, .low: .background, .critical: .complete]
        default: [.moderate: nil, .low: nil, .critical: nil]
        }
        for (level, warning) in expected {
            var h = LifecycleHarness.inState(state)
            let actions = h.handle(.memoryPressure(level))
            #expect(actions == (warning.map { [.send(.memoryWarning($0))] } ?? []), "\(state) at \(level)")
            #expect(h.state == state, "a warning changes no state")
        }
    }

    @Test func aChildIsWarnedOnceForEachHarderLevelAndAgainAfterThePressureEased() {
        var h = LifecycleHarness.active()
        #expect(h.handle(.memoryPressure(.moderate)) == [.send(.memoryWarning(.moderate))])
        #expect(h.handle(.memoryPressure(.moderate)) == [], "the same level again: no second warning")
        #expect(h.handle(.memoryPressure(.critical)) == [.send(.memoryWarning(.critical))])
        #expect(h.handle(.memoryPressure(.low)) == [], "a milder level after a harder one: nothing")
        #expect(h.handle(.memoryPressure(.none)) == [], "the pressure eased: nothing is sent")
        #expect(h.handle(.memoryPressure(.low)) == [.send(.memoryWarning(.low))], "a new pressure warns again")
    }

    @Test func aChildThatMovesToTheBackgroundIsToldItsBackgroundLevel() {
        var h = LifecycleHarness.active()
        h.handle(.memoryPressure(.critical))
        h.handle(.background)
        #expect(h.handle(.memoryPressure(.critical)) == [.send(.memoryWarning(.complete))])
        #expect(h.handle(.memoryPressure(.low)) == [])
    }

    @Test func aSuspendedChildIsNotThawedToBeWarnedAndIsWarnedOnceItRunsAgain() {
        var h = LifecycleHarness.suspended()
        #expect(h.handle(.memoryPressure(.critical)) == [])
        h.handle(.foreground)
        h.take()
        #expect(h.handle(.memoryPressure(.critical)) == [.send(.memoryWarning(.critical))])
    }

    @Test func aWarningIsOnlyAnEventNoTimerMoves() {
        var h = LifecycleHarness.background()
        let deadline = h.machine.nextDeadline
        h.handle(.memoryPressure(.low))
        #expect(h.machine.nextDeadline == deadline)
    }
}
