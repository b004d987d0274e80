import Foundation
import SuperviseTestSupport
import Testing

/// The control socket when the supervisor is out of file descriptors: a connection it can't keep
/// is answered and closed, and the socket serves again as soon as descriptors are freed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ControlSocketLimitTests {
    let temporary = TemporaryDirectory()

    /// A connection to `path` that sends nothing; -1 when none could be made.
    static func silentConnection(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected != 0 { close(fd) }
        return connected == 0 ? fd : -1
    }

    @Test func theSocketServesAgainOnceDescriptorsAreFreed() throws {
        let config = temporary.file("many.toml")
        var text = "[child.main]\ncommand = [\"sleep\", \"60\"]\n"
        for index in 1...5 { text += "[child.c\(index)]\ncommand = [\"sleep\", \"3\"]\n" }
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let socket = temporary.file("s")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--nofile=40:40", Supervise.binary, "--freezer", "sigstop", "--control", "none",
                             "--socket", socket, "--config", config]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        #expect(eventually { FileManager.default.fileExists(atPath: socket) })
        // More silent clients than the supervisor has descriptors left: the table fills up.
        let silent = (0..<40).map { _ in Self.silentConnection(socket) }
        defer { for fd in silent where fd >= 0 { close(fd) } }
        Thread.sleep(forTimeInterval: 0.5)
        let full = try Ctl.run(socket, ["status"], timeout: 10)
        #expect(full.status == 2 && full.stderr.contains("out of file descriptors"), "\(full)")
        // Out of descriptors, nothing pending: the supervisor waits without spinning. Meanwhile
        // the five short children exit and free their pipes; the silent clients stay.
        let ticks = try #require(ClosedChannelTests.cpuTicks(of: process.processIdentifier, over: 3.5))
        #expect(ticks < 20, "\(ticks) ticks in 3.5 s out of descriptors")
        let served = try Ctl.run(socket, ["status"], timeout: 10)
        #expect(served.status == 0 && served.lines.count == 6, "\(served)")
    }
}
