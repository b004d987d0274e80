import Testing
import SuperviseProtocol
import SuperviseTestSupport

/// `Event` encoding and decoding, the client's reading of what the supervisor writes.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct EventFuzzTests {
    @Test func encodedEventsDecodeToThemselves() throws {
        var run = FuzzRun("events-roundtrip", defaultIterations: 20000)
        for _ in 0..<run.iterations {
            let event = try Self.generate(&run.random)
            var line: [UInt8] = []
            event.write(into: &line)
            #expect(line.count <= maxLineLength && line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil)
            #expect(Event(line: line) == event, "line \(ErrorShape.show(line))")
        }
    }

    @Test func mutatedLinesDecodeToEventsThatReencodeTheSame() {
        var run = FuzzRun("events-mutated", defaultIterations: 5000)
        let corpus = Corpus.lines("events")
        for _ in 0..<run.iterations {
            let line = Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                      splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            guard let event = Event(line: line) else { continue }
            var encoded: [UInt8] = []
            event.write(into: &encoded)
            #expect(encoded.count <= maxLineLength, "line \(ErrorShape.show(line))")
            let again = Event(line: encoded)
            var reencoded: [UInt8] = []
            again?.write(into: &reencoded)
            #expect(reencoded == encoded, "line \(ErrorShape.show(line))")
        }
    }

    /// An event whose fields survive encoding: a one-word KIND, free text without line breaks,
    /// and short enough not to be cut.
    static func generate(_ random: inout SeededGenerator) throws -> Event {
        func text() -> String { TextGenerator.text(&random).replacingNewlines }
        func milliseconds() -> Int64 { random.oneIn(10) ? Int64.max : Int64.random(in: 0...100_000, using: &random) }
        func seq() -> UInt64 { random.oneIn(10) ? UInt64.max : UInt64.random(in: 0...1000, using: &random) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .didFinishLaunching(LaunchState.allCases.randomElement(using: &random)!,
                                           reclaimed: Bool.random(using: &random))
        case 1: return .didBecomeActive
        case 2: return .willResignActive
        case 3: return .didEnterBackground(seq: seq(), windowMS: milliseconds(), limitMS: milliseconds())
        case 4:
            let kind = TextGenerator.taskID(&random) + (random.oneIn(3) ? "é:😀" : "")
            let body = text()
            return .event(seq: seq(), kind: kind, text: body.isEmpty ? nil : body)
        case 5: return .expire(try #require(TaskID(TextGenerator.taskID(&random))))
        case 6: return .willEnterForeground
        case 7: return .willTerminate(graceMS: milliseconds())
        case 8: return .task(id: try #require(TaskID(TextGenerator.taskID(&random))),
                             kind: ScheduledTaskKind.allCases.randomElement(using: &random)!, limitMS: milliseconds())
        default:
            return .error(RequestError(code: ProtocolErrorCode.allCases.randomElement(using: &random)!, request: text()))
        }
    }
}

extension String {
    /// The text with `\r` and `\n` made spaces, as free text is written.
    var replacingNewlines: String {
        String(decoding: utf8.map { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 },
               as: UTF8.self)
    }
}
