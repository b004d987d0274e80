import Foundation
import SuperviseProtocol
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// What a child or stdin can make the supervisor hold stays bounded.
@Suite(.timeLimit(.minutes(5))) struct InputBoundsTests {
    @Test func aFullEventBacklogStopsRequestsUntilTheChildHasReadItAll() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        Descriptor.setNonBlocking(fds[0])
        Descriptor.setNonBlocking(fds[1])
        let writer = EventWriter(fd: fds[1], maxOpenTasks: 1)
        var changes: [EventWriter.BacklogChange] = []
        writer.onBacklogChange = { changes.append($0) }
        let id = try #require(TaskID(String(repeating: "x", count: TaskID.maxLength)))
        var sent = 0
        while !writer.isFull {
            writer.send([.expire(id)])
            sent += 1
            try #require(sent < 1_000_000)
        }
        #expect(changes == [.formed, .full])
        writer.send([.error(RequestError(code: .unknownRequest, request: "x"))])
        #expect(writer.errorsDropped == 1, "errors are dropped long before the backlog is full")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var received = 0
        while changes.last != .drained {
            received += max(0, read(fds[0], &buffer, buffer.count))
            writer.flush(EventLoop.writable)
            #expect(writer.isFull == (changes.last != .drained), "full until the child has read it all")
            try #require(received <= sent * EventWriter.longestExpireLine)
        }
        received += max(0, read(fds[0], &buffer, buffer.count))
        #expect(changes == [.formed, .full, .drained])
        #expect(received == sent * EventWriter.longestExpireLine, "lifecycle events are never dropped")
    }

    /// Every line a `CommandReader` takes from stdin holding `text`.
    func commandLines(from text: String) throws -> [CommandReader.Line] {
        let temporary = TemporaryDirectory(prefix: "supervise-stdin")
        defer { temporary.remove() }
        let url = temporary.url.appendingPathComponent("stdin")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        let reader = CommandReader(fd: fd, keepGoing: false)
        var lines: [CommandReader.Line] = []
        while !reader.reachedEOF {
            reader.readAvailable()
            while let line = reader.nextLine() { lines.append(line) }
        }
        return lines
    }

    @Test func anOverlongStdinLineIsSkippedWithoutBeingStored() throws {
        let long = String(repeating: "b", count: 10 * CommandReader.maxLineLength)
        let lines = try commandLines(from: "status\n\(long)\nforeground\n")
        #expect(lines.map(\.number) == [1, 2, 3])
        #expect(lines.map(\.isTooLong) == [false, true, false])
        #expect(lines[1].text == String(repeating: "b", count: LineSplitter.tooLongPrefixLength))
        #expect(lines[2].text == "foreground")
    }

    @Test func aStdinLineOfExactlyTheLimitIsACommand() throws {
        let text = "status" + String(repeating: " ", count: CommandReader.maxLineLength - 7)
        let lines = try commandLines(from: text + "\n")
        #expect(lines.map(\.isTooLong) == [false])
        #expect(lines.first?.text == text)
    }
}
