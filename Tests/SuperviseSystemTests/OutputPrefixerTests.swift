import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct OutputPrefixerTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func padsTheNameToTheWidth() {
        var prefixer = OutputPrefixer(name: "api", width: 6)
        #expect(text(prefixer.feed(Array("hello\n".utf8))) == "api    | hello\n")
    }

    @Test func widthIsTheLongestName() {
        #expect(OutputPrefixer.width(for: ["api", "batch-job", "db"]) == 9)
        #expect(OutputPrefixer.width(for: []) == 0)
    }

    @Test func aNameLongerThanTheWidthIsNotCut() {
        var prefixer = OutputPrefixer(name: "longname", width: 3)
        #expect(text(prefixer.feed(Array("x\n".utf8))) == "longname | x\n")
    }

    @Test func prefixesEveryLineOfAChunk() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        #expect(text(prefixer.feed(Array("one\ntwo\n\nthree\n".utf8))) == "a | one\na | two\na | \na | three\n")
    }

    @Test func holdsAPartialLineUntilItsNewline() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        #expect(prefixer.feed(Array("par".utf8)).isEmpty)
        #expect(prefixer.feed(Array("tial".utf8)).isEmpty)
        #expect(text(prefixer.feed(Array(" line\nnext".utf8))) == "a | partial line\n")
        #expect(text(prefixer.feed(Array("\n".utf8))) == "a | next\n")
    }

    @Test func twoChildrenNeverInterleaveMidLine() {
        var api = OutputPrefixer(name: "api", width: 5)
        var batch = OutputPrefixer(name: "batch", width: 5)
        var merged: [UInt8] = []
        merged += api.feed(Array("GET /".utf8))
        merged += batch.feed(Array("step 1 of".utf8))
        merged += api.feed(Array("health 200\n".utf8))
        merged += batch.feed(Array(" 3\n".utf8))
        #expect(text(merged) == "api   | GET /health 200\nbatch | step 1 of 3\n")
    }

    @Test func finishEndsAHeldLineWithANewline() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        _ = prefixer.feed(Array("no newline".utf8))
        #expect(text(prefixer.finish()) == "a | no newline\n")
        #expect(prefixer.finish().isEmpty)
    }

    @Test func finishAfterACompleteLineWritesNothing() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        _ = prefixer.feed(Array("done\n".utf8))
        #expect(prefixer.finish().isEmpty)
    }

    @Test func aLongPartialLineIsWrittenOncePastTheLimit() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        let limit = OutputPrefixer.maxHeldBytes
        #expect(prefixer.feed([UInt8](repeating: UInt8(ascii: "x"), count: limit)).isEmpty)
        let flushed = prefixer.feed(Array("y".utf8))
        #expect(flushed == Array("a | ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: limit) + Array("y".utf8))
        #expect(text(prefixer.feed(Array("z\nnext\n".utf8))) == "z\na | next\n")
    }

    @Test func aFlushedLineEndedByEOFGetsItsNewlineWithoutAPrefix() {
        var prefixer = OutputPrefixer(name: "a", width: 1)
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: OutputPrefixer.maxHeldBytes + 1)
        #expect(prefixer.feed(long).count == long.count + 4)
        #expect(text(prefixer.finish()) == "\n")
        _ = prefixer.feed(Array("more".utf8))
        #expect(text(prefixer.finish()) == "a | more\n")
    }

    @Test func bytesPassThroughUnchanged() {
        var prefixer = OutputPrefixer(name: "b", width: 1)
        let payload: [UInt8] = [0xFF, 0x00, 0x1B, UInt8(ascii: "["), UInt8(ascii: "\r"), UInt8(ascii: "\n")]
        #expect(prefixer.feed(payload[...]) == Array("b | ".utf8) + payload)
    }

    @Test func feedsAnyCollectionOfBytes() {
        var prefixer = OutputPrefixer(name: "c", width: 1)
        let bytes = "one\ntwo\n".utf8
        #expect(text(prefixer.feed(bytes)) == "c | one\nc | two\n")
    }
}
