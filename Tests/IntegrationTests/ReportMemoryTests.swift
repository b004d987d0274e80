import Foundation
import Glibc
import Testing
import SuperviseTestSupport

/// Writing the report takes the supervisor memory independent of the report's size (issue 24
/// item 11): beyond the records the run holds (capped), the report is streamed in 64 KiB
/// chunks. It once needed twice its size or more: a 49 MB report raised the peak RSS by 110 MB.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ReportMemoryTests {
    /// Writes 6,000 malformed 900-byte requests (each kept with its `error` event until the
    /// 10,000 protocol messages a child's record keeps), reading fd 3; then says so in argv[1].
    static let flood = """
        import os, sys, threading, time
        def drain():
            while os.read(3, 65536): pass
        threading.Thread(target=drain, daemon=True).start()
        for i in range(6000): os.write(4, b"r%05d %s\\n" % (i, b"x" * 900))
        open(sys.argv[1], "w").write("done")
        time.sleep(120)
        """

    struct Measure {
        var reportBytes: Int
        /// The supervisor's peak RSS (VmHWM) once every child had flooded, before the run ended.
        var beforeEndKB: Int
        /// Its peak RSS over the whole run, report written (wait4's ru_maxrss).
        var peakKB: Int
    }

    /// Runs `children` flooding children until each is done, then ends the run with a report.
    static func measure(children: Int) throws -> Measure {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        try flood.write(toFile: temporary.file("flood.py"), atomically: true, encoding: .utf8)
        let config = (0..<children).map { index in
            "[child.f\(index)]\ncommand = [\"python3\", \"\(temporary.file("flood.py"))\", \"\(temporary.file("done\(index)"))\"]\n"
        }.joined()
        try config.write(toFile: temporary.file("c.toml"), atomically: true, encoding: .utf8)
        let report = temporary.file("r.json")
        var pipe: [Int32] = [0, 0]
        try #require(Glibc.pipe(&pipe) == 0)
        var actions = posix_spawn_file_actions_t(), attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_adddup2(&actions, pipe[0], 0)
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        // stderr to a file: /usr/bin/time's `%M` is the last line.
        posix_spawn_file_actions_addopen(&actions, 2, temporary.file("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try closeInheritedDescriptors(&actions)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        // Through /usr/bin/time, which forks: a child spawned from this process (vfork, sharing its
        // memory until the exec) would count the test process's RSS as its own peak.
        let arguments = [time, "-f", "%M", Supervise.binary, "--log-level", "error", "--config", temporary.file("c.toml"),
                         "--report", report]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var timer: pid_t = 0
        try #require(posix_spawn(&timer, time, &actions, &attributes, argv, environ) == 0)
        close(pipe[0])
        let flooded = eventually(timeout: 120, interval: 0.1) {
            (0..<children).allSatisfy { FileManager.default.fileExists(atPath: temporary.file("done\($0)")) }
        }
        usleep(500_000)  // the last lines still in the pipes
        let supervisor = (try? String(contentsOfFile: "/proc/\(timer)/task/\(timer)/children", encoding: .utf8))
            .flatMap { Int32($0.split(separator: " ").first ?? "") }
        let beforeEnd = supervisor.flatMap { Self.statusKB("VmHWM", of: $0) }
        _ = "terminate all\n".withCString { write(pipe[1], $0, strlen($0)) }
        close(pipe[1])
        var status: Int32 = 0
        try #require(waitpid(timer, &status, 0) == timer)
        try #require(flooded, "every child wrote its 6,000 requests within 120 s")
        let size = (try? FileManager.default.attributesOfItem(atPath: report)[.size] as? Int) ?? nil
        let stderr = (try? String(contentsOfFile: temporary.file("stderr"), encoding: .utf8)) ?? ""
        let peak = stderr.split(separator: "\n").last.flatMap { Int($0) }
        return Measure(reportBytes: try #require(size, "the report was written"),
                       beforeEndKB: try #require(beforeEnd, "VmHWM of the supervisor, pid \(supervisor ?? -1)"),
                       peakKB: try #require(peak, "the peak RSS /usr/bin/time printed: \(stderr.suffix(300))"))
    }

    static let time = "/usr/bin/time"

    /// A `NAME: N kB` line of /proc/PID/status.
    static func statusKB(_ name: String, of pid: pid_t) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    @Test(.skip("/usr/bin/time measures the peak", because: FileManager.default.isExecutableFile(atPath: time) ? nil
                : "no /usr/bin/time (apt-get install time)", in: "ReportMemoryTests"))
    func writingAReportFourTimesLargerTakesNoMoreMemory() throws {
        let small = try Self.measure(children: 1)
        let large = try Self.measure(children: 4)
        let growth = (large.reportBytes - small.reportBytes) / 1024
        #expect(growth > 12 * 1024, "reports of \(small.reportBytes) and \(large.reportBytes) bytes")
        let smallExtra = small.peakKB - small.beforeEndKB, largeExtra = large.peakKB - large.beforeEndKB
        print("report \(small.reportBytes) B: \(small.beforeEndKB) → \(small.peakKB) KiB; "
              + "\(large.reportBytes) B: \(large.beforeEndKB) → \(large.peakKB) KiB")
        // Writing is bounded: a few MiB at most, and not a quarter of what the report grew by.
        #expect(largeExtra < 8 * 1024, "writing \(large.reportBytes) bytes raised the peak by \(largeExtra) KiB")
        #expect(largeExtra - smallExtra < growth / 4,
                "the report grew by \(growth) KiB; the peak the writing adds, by \(largeExtra - smallExtra) KiB")
    }
}
