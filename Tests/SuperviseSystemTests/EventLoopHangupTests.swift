import Glibc
import SuperviseLifecycle
import Testing
@testable import SuperviseSystem

/// epoll reports EPOLLERR and EPOLLHUP whatever the mask: a descriptor whose other end is closed
/// must not wake the loop again and again while its handler has paused it.
@Suite struct EventLoopHangupTests {
    /// A pipe's two ends; those the test did not close are closed when it ends. (Never by asking
    /// whether the number is open: tests run side by side, and a number closed here may be
    /// another test's descriptor by then.)
    final class Pipe {
        let read: Int32, write: Int32
        private var open: [Int32]
        init() throws {
            var fds: [Int32] = [0, 0]
            try #require(pipe(&fds) == 0)
            for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
            (read, write) = (fds[0], fds[1])
            open = fds
        }
        func close(_ fd: Int32) {
            Glibc.close(fd)
            open.removeAll { $0 == fd }
        }
        deinit { for fd in open { Glibc.close(fd) } }
    }

    /// Turns of the loop (each with nothing else to wait for) that ran `fd`'s handler.
    func wakeUps(_ loop: EventLoop, turns: Int = 50) -> Int {
        var count = 0
        for _ in 0..<turns {
            var woke = false
            loop.afterEachHandler = { woke = true }
            loop.wait(until: nil, pollOnly: true)
            if woke { count += 1 }
        }
        return count
    }

    @Test func aPausedWriteEndWhoseReaderClosedWakesTheLoopOnce() throws {
        let loop = try EventLoop()
        let pipe = try Pipe()
        var reported: UInt32 = 0
        loop.add(pipe.write, events: 0) { reported |= $0 }
        pipe.close(pipe.read)
        #expect(wakeUps(loop) == 1, "EPOLLERR on a paused descriptor is heard once, then it is out of the set")
        #expect(reported & EventLoop.closed != 0, "the handler is told the other end is gone")
    }

    @Test func aPausedReadEndWhoseWriterClosedIsHeardAgainWhenResumed() throws {
        let loop = try EventLoop()
        let pipe = try Pipe()
        var reads = 0
        loop.add(pipe.read) { _ in reads += 1 }
        loop.modify(pipe.read, events: 0)
        pipe.close(pipe.write)
        #expect(wakeUps(loop) == 1)
        loop.modify(pipe.read, events: EventLoop.readable)
        #expect(wakeUps(loop, turns: 3) == 3, "resumed, the end of the pipe is readable again (until removed)")
        loop.remove(pipe.read)
        #expect(wakeUps(loop, turns: 3) == 0)
        #expect(reads == 4)
    }
}
