import Glibc
import Testing
@testable import SuperviseSystem

/// The supervisor's end of a control connection, on a real socket pair: one line in, the
/// answer bounded for a client that does not read, the outcome line always last.
@Suite(.timeLimit(.minutes(5))) struct ControlConnectionTests {
    /// A connected pair: the supervisor's end (non-blocking) and the client's.
    static func pair() -> (ControlConnection, client: Int32) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        return (ControlConnection(fd: fds[0], peer: PeerCredentials(uid: 0, gid: 0, inSocketGroup: false)), fds[1])
    }

    /// Everything the client can read now.
    static func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = read(fd, &chunk, chunk.count), count > 0 { bytes += chunk[..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func readsOneLineThenReportsTheEnd() {
        let (connection, client) = Self.pair()
        defer { connection.close(); close(client) }
        #expect(connection.read() == .incomplete)
        _ = write(client, "stat", 4)
        #expect(connection.read() == .incomplete)
        _ = write(client, "us\nmore\n", 8)
        #expect(connection.read() == .line("status"))
        shutdown(client, Int32(SHUT_WR))
        #expect(connection.read() == .closed && connection.isGone)
    }

    @Test func aClientThatDoesNotReadGetsABoundedAnswerWithANote() {
        let (connection, client) = Self.pair()
        defer { connection.close(); close(client) }
        let line = String(repeating: "x", count: 1023)
        let lines = ControlConnection.maxPendingOutput / 1024 + 100
        for _ in 0..<lines {
            connection.send(line)
            connection.flush()
        }
        #expect(connection.droppedBytes > 0, "the socket's buffer and the bound are full")
        connection.finish("ok")
        var received = ""
        while !connection.flush() { received += Self.drain(client) }
        received += Self.drain(client)
        let tail = received.split(separator: "\n").suffix(2)
        #expect(tail.first == "note: \(connection.droppedBytes) bytes of answer dropped: the client did not read them")
        #expect(tail.last == "ok", "the outcome line is never dropped")
        #expect(received.utf8.count < (lines + 2) * 1024)
    }
}
