import Foundation
import Testing
import SuperviseSystem
import SuperviseTestSupport
@testable import SuperviseShell

/// The report is streamed (`StreamedJSON` into a `ResultFile`'s `ResultStream`): the file holds
/// the very bytes `JSONValue.serialized()` gives for the same values, across many chunks.
@Suite struct StreamedJSONTests {
    static func entry(_ index: Int) -> JSONValue {
        .object([("t_ms", .double(Double(index) / 7)), ("kind", .string("request")),
                 ("text", .string("line \(index) \"quoted\" \u{1B} é " + String(repeating: "x", count: index % 300)))])
    }

    @Test func aStreamedReportIsTheSerializedOneByteForByte() throws {
        let indices = Array(0..<5_000)
        let streamed = StreamedJSON.object([
            ("version", .value(.int(2))),
            ("children", .array([indices, [], [1]]) { child in
                .object([("name", .value(.string("c\(child.count)"))), ("timeline", .array(child) { .value(Self.entry($0)) }),
                         ("empty", .array([Int]()) { _ in .value(.null) })])
            }),
        ])
        let whole = JSONValue.object([
            ("version", .int(2)),
            ("children", .array([indices, [], [1]].map { child in
                .object([("name", .string("c\(child.count)")), ("timeline", .array(child.map(Self.entry))),
                         ("empty", .array([]))])
            })),
        ]).serialized()
        #expect(whole.utf8.count > 4 * ResultStream.chunkSize, "several chunks: \(whole.utf8.count) bytes")

        let temporary = TemporaryDirectory(prefix: "supervise-stream")
        defer { temporary.remove() }
        let file = try ResultFile(path: temporary.file("r.json"))
        guard case .success = file.write({ streamed.write(into: &$0) }) else {
            Issue.record("the report was not written")
            return
        }
        #expect(try String(contentsOfFile: temporary.file("r.json"), encoding: .utf8) == whole)
    }
}
