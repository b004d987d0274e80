import Testing
import SuperviseProtocol
import SuperviseTestSupport

/// `LineSplitter` and `RequestParser`, the supervisor's reading of what a child writes.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct RequestFuzzTests {
    @Test func encodedRequestsParseBackToThemselves() throws {
        var run = FuzzRun("requests-roundtrip", defaultIterations: 20000)
        for _ in 0..<run.iterations {
            let request = try Self.generate(&run.random)
            var line: [UInt8] = []
            request.write(into: &line)
            #expect(line.count <= maxLineLength && line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil)
            let parsed = RequestParser.parse(line.dropLast())
            #expect(parsed == .success(request), "line \(ErrorShape.show(line))")
        }
    }

    @Test func mutatedStreamsSplitAndParseWithoutTrapping() {
        var run = FuzzRun("requests-mutated", defaultIterations: 2000)
        let corpus = Corpus.lines("requests")
        for _ in 0..<run.iterations {
            var stream: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &run.random) {
                stream += Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                         splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
                stream.append(UInt8(ascii: "\n"))
            }
            if run.random.oneIn(4) { stream.removeLast() }
            let limit = run.random.oneIn(2) ? maxLineLength : Int.random(in: 1...64, using: &run.random)
            for line in SplitterModel.split(stream, chunkedBy: &run.random, maxLineLength: limit) {
                guard case .line(let bytes) = line else { continue }
                check(bytes)
            }
        }
    }

    /// One line: nothing for an empty line, else a request that encodes and parses back to
    /// itself, or an error that quotes the line's first 200 bytes.
    private func check(_ line: [UInt8]) {
        switch RequestParser.parse(line) {
        case nil:
            #expect(line.isEmpty)
        case .failure(let error):
            #expect(error.request == String(decoding: line.prefix(RequestError.maxRequestLength), as: UTF8.self))
        case .success(let request):
            var encoded: [UInt8] = []
            request.write(into: &encoded)
            #expect(RequestParser.parse(encoded.dropLast()) == .success(request.normalized),
                    "line \(ErrorShape.show(line))")
        }
    }

    static func generate(_ random: inout SeededGenerator) throws -> Request {
        func id() throws -> TaskID { try #require(TaskID(TextGenerator.taskID(&random))) }
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return .hello
        case 1: return .done(seq: random.oneIn(10) ? UInt64.max : UInt64.random(in: 1...1_000_000, using: &random))
        case 2:
            let id = try #require(TaskID(TextGenerator.taskID(&random)))
            let name = TextGenerator.text(&random)
            return .begin(id: id, name: name.isEmpty ? nil : name)
        case 3:
            let earliest = random.oneIn(10) ? Int64.max : Int64.random(in: 0...10_000_000, using: &random)
            let requires = Set(ScheduleCondition.allCases.filter { _ in Bool.random(using: &random) })
            return .schedule(ScheduleRequest(id: try id(), kind: ScheduledTaskKind.allCases.randomElement(using: &random)!,
                                             earliestMS: earliest, requires: requires))
        case 4: return .cancel(id: try id())
        case 5: return .taskCompleted(id: try id(), success: Bool.random(using: &random))
        default:
            return .end(id: try id())
        }
    }
}

extension Request {
    /// The request as it reads back once encoded: a name's `\r` and `\n` become spaces.
    var normalized: Request {
        guard case .begin(let id, let name?) = self else { return self }
        return .begin(id: id, name: name.replacingNewlines)
    }
}
