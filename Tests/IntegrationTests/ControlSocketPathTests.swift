import Foundation
import SuperviseTestSupport
import Synchronization
import Testing

/// The control socket's path against whoever can write its directory: nothing the supervisor
/// does there may follow a link or act on a file it did not make.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ControlSocketPathTests {
    let temporary = TemporaryDirectory()

    /// The mode, owner and group of `path` (not following a link).
    static func identity(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & 0o7777, info.st_uid, info.st_gid)
    }

    /// A thread swaps a symlink to a root-owned file in and out at the socket's path while
    /// supervisors start there again and again, and another swaps one in the moment a socket
    /// appears there (inotify), as an attacker waiting for it would: the file keeps its mode and
    /// group. The swapper's link is there half the time, so 100 runs don't all miss.
    @Test(arguments: [false, true]) func aSymlinkSwappedAtTheSocketPathIsNeverFollowed(withGroup: Bool) throws {
        let target = temporary.file("target")
        try "secret".write(toFile: target, atomically: false, encoding: .utf8)
        try #require(chmod(target, withGroup ? 0o600 : 0o644) == 0)
        let before = try #require(Self.identity(target))
        let socket = temporary.file("s")
        let stop = Atomic<Bool>(false)
        // The pauses leave the cores to the supervisors (and to the tests beside this one): a
        // loop without them spun a core for the whole test, and 0.2 ms ones still took a share
        // of it in wake-ups; a supervisor's start spans many 1 ms swaps.
        let swapper = Thread {
            while !stop.load(ordering: .relaxed) {
                _ = unlink(socket)
                usleep(1000)
                _ = symlink(target, socket)
                usleep(1000)
            }
        }
        swapper.start()
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify_add_watch(watch, temporary.path, UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) >= 0 else {
            close(watch)
            stop.store(true, ordering: .relaxed)
            Issue.record("inotify: \(errno)")
            return
        }
        // Closes the watch itself once stopped: no other thread's descriptor is ever read.
        let pouncer = Thread {
            defer { close(watch) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var ready = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            while !stop.load(ordering: .relaxed) {
                guard poll(&ready, 1, 50) > 0 else { continue }
                _ = read(watch, &buffer, buffer.count)
                var info = stat()
                if lstat(socket, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK {
                    _ = unlink(socket)
                    _ = symlink(target, socket)
                }
            }
        }
        pouncer.start()
        defer { stop.store(true, ordering: .relaxed) }
        var listened = 0
        for _ in 0..<100 {
            let run = try Supervise.run(["--socket", socket] + (withGroup ? ["--socket-group", "daemon"] : [])
                                        + ["--control", "none", "--", "true"], timeout: 20)
            if run.status == 0 { listened += 1 }
            let now = try #require(Self.identity(target))
            #expect(now == before, "the target changed: \(now) (was \(before)); \(run.stderr)")
            if now != before { break }
        }
        stop.store(true, ordering: .relaxed)
        #expect(listened > 0, "some runs got to listen between the swaps")
    }

    /// The socket is made with its mode and group, whatever the umask, and nothing is left of the
    /// private directory it was made in.
    @Test func theSocketIsMadeWithItsModeAndGroupAndNothingElse() throws {
        let socket = temporary.file("s")
        let live = try LiveSupervise(["--control", "none", "--socket", socket, "--socket-group", "daemon",
                                      "--", "sleep", "30"])
        defer { live.stop() }
        #expect(eventually { FileManager.default.fileExists(atPath: socket) })
        let made = try #require(Self.identity(socket))
        #expect(made.mode == 0o660 && made.uid == getuid() && made.gid == 1, "\(made)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == ["s"])
        #expect(try Ctl.run(socket, ["version"]).status == 0)
        // Something else at the path by the end is left alone.
        _ = unlink(socket)
        try "not ours".write(toFile: socket, atomically: false, encoding: .utf8)
        live.signal(SIGTERM)
        #expect(live.finish().report != nil, "the run ended")
        #expect((try? String(contentsOfFile: socket, encoding: .utf8)) == "not ours")
    }
}
