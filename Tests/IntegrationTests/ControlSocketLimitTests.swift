import Foundation
import SuperviseTestSupport
import Testing

/// The control socket when the supervisor is out of file descriptors: a connection it can't keep
/// is answered and closed, and the socket serves again as soon as descriptors are freed.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ControlSocketLimitTests {
    let temporary = TemporaryDirectory()

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
        let silent = (0..<40).map { _ in (try? UnixSocket.connect(socket)) ?? -1 }
        defer { for fd in silent where fd >= 0 { close(fd) } }
        Thread.sleep(forTimeInterval: 0.5)
        let full = try Ctl.run(socket, ["status"], timeout: 10)
        #expect(full.status == 2 && full.stderr.contains("out of file descriptors"), "\(full)")
        // Out of descriptors, nothing pending: the supervisor waits without spinning. Meanwhile
        // the five short children exit and free their pipes; the silent clients stay.
        let cpu = try #require(ClosedChannelTests.cpuTime(of: process.processIdentifier, over: 3.5))
        #expect(cpu < 0.2, "\(cpu) s of CPU in 3.5 s out of descriptors")
        let served = try Ctl.run(socket, ["status"], timeout: 10)
        #expect(served.status == 0 && served.lines.count == 6, "\(served)")
    }
}

/// `supervise ctl` against a supervisor that does not answer: it gives up after `--timeout`.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct CtlTimeoutTests {
    let temporary = TemporaryDirectory()

    @Test func ctlGivesUpOnAStoppedSupervisor() throws {
        let socket = temporary.file("s")
        let live = try LiveSupervise(["--control", "none", "--socket", socket, "--", "sleep", "30"])
        defer {
            live.signal(SIGCONT)
            live.stop()
        }
        #expect(eventually { FileManager.default.fileExists(atPath: socket) })
        live.signal(SIGSTOP)
        let status = try Ctl.run(socket, ["--timeout", "500ms", "status"], timeout: 20)
        #expect(status.status == 69, "\(status)")
        #expect(status.stderr == "supervise ctl: error: no answer from the supervisor at '\(socket)' within 0.5s (stopped, or not serving?)\n")
        let byDefault = try Ctl.run(socket, ["status"], timeout: 30)
        #expect(byDefault.status == 69 && byDefault.stderr.contains("within 10s"), "the default: \(byDefault)")
        // A wait gets its own time first, then --timeout: still 69, as its supervisor never answered.
        let start = Date()
        let wait = try Ctl.run(socket, ["--timeout", "200ms", "wait", "exited", "timeout=300ms"], timeout: 20)
        #expect(wait.status == 69 && Date().timeIntervalSince(start) >= 0.5, "\(wait)")
        live.signal(SIGCONT)
        let late = try Ctl.run(socket, ["--timeout", "5s", "wait", "exited", "timeout=300ms"], timeout: 20)
        #expect(late.status == 123, "a wait's own timeout keeps 123: \(late)")
        let bad = try Ctl.run(socket, ["--timeout", "soon", "status"])
        #expect(bad.status == 64 || bad.status == 2, "\(bad)")
    }
}
