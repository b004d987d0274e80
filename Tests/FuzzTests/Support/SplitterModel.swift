import Testing
import SuperviseProtocol
import SuperviseTestSupport

/// `LineSplitter` checked against a plain reading of its contract, whatever the chunking.
enum SplitterModel {
    /// Feeds `stream` to a `LineSplitter` in random chunks, expects the lines the contract
    /// gives, and returns the splitter's lines.
    static func split(
        _ stream: [UInt8], chunkedBy random: inout SeededGenerator, maxLineLength: Int
    ) -> [LineSplitter.Line] {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        var lines: [LineSplitter.Line] = []
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + Int.random(in: 1...700, using: &random))
            splitter.append(contentsOf: stream[start..<end])
            while let line = splitter.next() { lines.append(line) }
            start = end
        }
        while let line = splitter.finish() { lines.append(line) }
        expectContract(lines, stream: stream, maxLineLength: maxLineLength)
        return lines
    }

    /// Each `\n`-ended segment is a line without its `\n` and one `\r` before it, or, when it
    /// is `maxLineLength` bytes or more before its `\n`, a too-long prefix of it; an unended
    /// last segment is returned whole (or too long).
    private static func expectContract(_ lines: [LineSplitter.Line], stream: [UInt8], maxLineLength: Int) {
        var segments = stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let unended = segments.removeLast()
        if !unended.isEmpty { segments.append(unended) }
        #expect(lines.count == segments.count, "stream \(ErrorShape.show(stream))")
        for (index, (line, segment)) in zip(lines, segments).enumerated() {
            let ended = index < segments.count - 1 || unended.isEmpty
            switch line {
            case .tooLong(let prefix):
                #expect(segment.count >= maxLineLength)
                #expect(segment.starts(with: prefix) && prefix.count <= LineSplitter.tooLongPrefixLength,
                        "limit \(maxLineLength): \(ErrorShape.show(prefix)) is no prefix of \(ErrorShape.show(segment))")
                #expect(prefix.count >= min(segment.count, maxLineLength, LineSplitter.tooLongPrefixLength))
            case .line(let bytes):
                #expect(segment.count < maxLineLength)
                let expected = ended && segment.last == UInt8(ascii: "\r") ? Array(segment.dropLast()) : segment
                #expect(bytes == expected, "segment \(ErrorShape.show(segment))")
            }
        }
    }
}
