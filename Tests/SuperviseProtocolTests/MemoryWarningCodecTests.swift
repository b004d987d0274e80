import SuperviseProtocol
import Testing

/// `memory-warning LEVEL`: its spelling, its round trip, and what an old or new client does
/// with a level it does not know.
@Suite(.timeLimit(.minutes(5))) struct MemoryWarningCodecTests {
    @Test(arguments: MemoryWarning.allCases)
    func spelledAndRoundTripped(_ level: MemoryWarning) {
        let event = Event.memoryWarning(level)
        #expect(event.line == "memory-warning \(level.rawValue)\n")
        #expect(Event(line: Array(event.line.utf8)) == event)
    }

    @Test func theFiveLevels() {
        #expect(MemoryWarning.allCases.map(\.rawValue) == ["moderate", "low", "critical", "background", "complete"])
        #expect(MemoryWarning.allCases.filter(\.isForForeground) == [.moderate, .low, .critical])
    }

    @Test func anUnknownOrMissingLevelIsIgnoredAndExtraFieldsAreNot() {
        #expect(Event(line: Array("memory-warning".utf8)) == nil)
        #expect(Event(line: Array("memory-warning severe\n".utf8)) == nil)
        #expect(Event(line: Array("memory-warning low 42\r\n".utf8)) == .memoryWarning(.low))
    }

    @Test func severityOrdersEachKind() {
        #expect(MemoryWarning.moderate.severity < MemoryWarning.low.severity)
        #expect(MemoryWarning.low.severity < MemoryWarning.critical.severity)
        #expect(MemoryWarning.background.severity < MemoryWarning.complete.severity)
    }
}
