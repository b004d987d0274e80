import Foundation
import Testing
@testable import SuperviseConfig
@testable import SuperviseShell
import SuperviseTestSupport

/// How a `CommandReader` over a file (not a terminal) treats mistakes, and that `stop` ends reading.
@Suite(.timeLimit(.minutes(5))) struct CommandReaderTests {
    /// A reader over a file holding `text`, and a way to close it.
    func reader(over text: String, keepGoing: Bool) throws -> (CommandReader, () -> Void) {
        let temporary = TemporaryDirectory(prefix: "supervise-stdin")
        let url = temporary.url.appendingPathComponent("stdin")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let fd = open(url.path, O_RDONLY)
        return (CommandReader(fd: fd, keepGoing: keepGoing), { close(fd); temporary.remove() })
    }

    @Test func aFileEndsTheRunOnAMistakeUnlessKeepGoing() throws {
        let (script, closeScript) = try reader(over: "", keepGoing: false)
        defer { closeScript() }
        #expect(script.mistakes == .endTheRun)
        let (kept, closeKept) = try reader(over: "", keepGoing: true)
        defer { closeKept() }
        #expect(kept.mistakes == .logged)
    }

    @Test func stopDropsTheLinesNotRunAndReadsNoMore() throws {
        let (reader, close) = try reader(over: "status\nforeground\nbackground\n", keepGoing: false)
        defer { close() }
        reader.readAvailable()
        #expect(reader.nextLine()?.text == "status")
        reader.stop()
        #expect(reader.nextLine() == nil)
        #expect(reader.reachedEOF, "stdin is read no more")
    }
}
