import SuperviseProtocol
import Testing

@Suite(.timeLimit(.minutes(5))) struct FramingTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every result `next()` yields for the input so far.
    private func drain(_ splitter: inout LineSplitter) -> [LineSplitter.Line] {
        var lines: [LineSplitter.Line] = []
        while let line = splitter.next() { lines.append(line) }
        return lines
    }

    @Test func splitsLinesAndStripsNewline() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("hello 1\nbegin a\n"))
        #expect(drain(&splitter) == [.line(bytes("hello 1")), .line(bytes("begin a"))])
        #expect(!splitter.hasPartialLine)
    }

    @Test func joinsALineSplitAcrossAppends() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("be"))
        #expect(splitter.next() == nil)
        #expect(splitter.hasPartialLine)
        splitter.append(contentsOf: bytes("gin x"))
        #expect(splitter.next() == nil)
        splitter.append(contentsOf: bytes(" upload\nend"))
        #expect(drain(&splitter) == [.line(bytes("begin x upload"))])
        splitter.append(contentsOf: bytes(" x\n"))
        #expect(drain(&splitter) == [.line(bytes("end x"))])
    }

    @Test func stripsCarriageReturnOnlyBeforeNewline() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("done 1\r\na\rb\n\r\r\n"))
        #expect(drain(&splitter) == [.line(bytes("done 1")), .line(bytes("a\rb")), .line(bytes("\r"))])
    }

    @Test func carriageReturnAndNewlineInSeparateAppends() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("end x\r"))
        #expect(splitter.next() == nil)
        splitter.append(contentsOf: bytes("\n"))
        #expect(drain(&splitter) == [.line(bytes("end x"))])
    }

    @Test func yieldsEmptyLines() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("\n\r\nx\n"))
        #expect(drain(&splitter) == [.line([]), .line([]), .line(bytes("x"))])
    }

    @Test func acceptsExactlyTheLimitIncludingNewline() {
        var splitter = LineSplitter()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1023)
        splitter.append(contentsOf: body + [10])
        #expect(drain(&splitter) == [.line(body)])
    }

    @Test func rejectsOneByteOverTheLimit() {
        var splitter = LineSplitter()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1024)
        splitter.append(contentsOf: body + bytes("\nend x\n"))
        #expect(drain(&splitter) == [.tooLong(prefix: Array(body.prefix(200))), .line(bytes("end x"))])
    }

    @Test func countsTheCarriageReturnTowardsTheLimit() {
        var splitter = LineSplitter()
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1023)
        splitter.append(contentsOf: body + bytes("\r\n"))
        #expect(drain(&splitter) == [.tooLong(prefix: Array(body.prefix(200)))])
    }

    @Test func reportsALongLineOnceAcrossManyAppendsThenResumes() {
        var splitter = LineSplitter()
        var results: [LineSplitter.Line] = []
        let chunk = [UInt8](repeating: UInt8(ascii: "z"), count: 500)
        splitter.append(contentsOf: bytes("begin "))
        for _ in 0..<200 {
            splitter.append(contentsOf: chunk)
            results += drain(&splitter)
            #expect(splitter.hasPartialLine)
        }
        splitter.append(contentsOf: bytes("zzz\nhello 1\n"))
        results += drain(&splitter)
        let prefix = bytes("begin ") + [UInt8](repeating: UInt8(ascii: "z"), count: 194)
        #expect(results == [.tooLong(prefix: prefix), .line(bytes("hello 1"))])
        #expect(!splitter.hasPartialLine)
    }

    /// Found by FuzzTests: with a limit under 200 bytes the prefix ran on into the next lines.
    @Test func tooLongPrefixStopsAtItsNewline() {
        var splitter = LineSplitter(maxLineLength: 5)
        splitter.append(contentsOf: bytes("hello 2\nend x\n"))
        #expect(drain(&splitter) == [.tooLong(prefix: bytes("hello 2")), .tooLong(prefix: bytes("end x"))])
    }

    @Test func tooLongIsReportedBeforeItsNewlineArrives() {
        var splitter = LineSplitter(maxLineLength: 8)
        splitter.append(contentsOf: bytes("1234567"))
        #expect(splitter.next() == nil)
        splitter.append(contentsOf: bytes("8"))
        #expect(splitter.next() == .tooLong(prefix: bytes("12345678")))
        splitter.append(contentsOf: bytes("9\nok\n"))
        #expect(drain(&splitter) == [.line(bytes("ok"))])
    }

    @Test func finishFlushesAnUnterminatedLastLine() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("end a\nend b"))
        #expect(drain(&splitter) == [.line(bytes("end a"))])
        #expect(splitter.hasPartialLine)
        #expect(splitter.finish() == .line(bytes("end b")))
        #expect(splitter.finish() == nil)
        #expect(!splitter.hasPartialLine)
    }

    @Test func finishReturnsCompleteLinesFirst() {
        var splitter = LineSplitter()
        splitter.append(contentsOf: bytes("a\nb"))
        #expect(splitter.finish() == .line(bytes("a")))
        #expect(splitter.finish() == .line(bytes("b")))
        #expect(splitter.finish() == nil)
    }

    @Test func finishAfterDiscardingReturnsNothingMore() {
        var splitter = LineSplitter(maxLineLength: 4)
        splitter.append(contentsOf: bytes("abcdef"))
        #expect(splitter.next() == .tooLong(prefix: bytes("abcdef")))
        #expect(splitter.hasPartialLine)
        #expect(splitter.finish() == nil)
        #expect(!splitter.hasPartialLine)
    }

    @Test func appendsFromARawBuffer() {
        var splitter = LineSplitter()
        bytes("done 7\n").withUnsafeBytes { splitter.append($0) }
        #expect(splitter.next() == .line(bytes("done 7")))
    }

    @Test func manyLinesSurviveCompaction() {
        var splitter = LineSplitter()
        var count = 0
        let chunk = Array(String(repeating: "end task-1\n", count: 1000).utf8)
        for _ in 0..<20 {
            // Append mid-way through the buffer so compaction has pending bytes to keep.
            splitter.append(contentsOf: chunk[..<5])
            count += drain(&splitter).filter { $0 == .line(bytes("end task-1")) }.count
            splitter.append(contentsOf: chunk[5...])
            count += drain(&splitter).filter { $0 == .line(bytes("end task-1")) }.count
        }
        #expect(count == 20_000)
        #expect(!splitter.hasPartialLine)
    }
}
