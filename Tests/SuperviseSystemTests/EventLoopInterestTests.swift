import Glibc
import Testing
@testable import SuperviseSystem

/// ``EventLoop/modify(_:events:)`` tells the epoll set at the next wait: what counts is the
/// interest a descriptor has when the loop waits, whatever changed it in between.
@Suite struct EventLoopInterestTests {
    /// Whether a turn that only polls runs `fd`'s handler.
    private func handlerRuns(_ loop: EventLoop) -> Bool {
        var ran = false
        loop.afterEachHandler = { ran = true }
        loop.wait(until: nil, pollOnly: true)
        return ran
    }

    /// A loop watching the read end of a pipe that has a byte ready.
    private func loopWithDataReady() throws -> (EventLoop, EventLoopHangupTests.Pipe) {
        let loop = try EventLoop()
        let pipe = try EventLoopHangupTests.Pipe()
        loop.add(pipe.read) { _ in }
        #expect(write(pipe.write, "x", 1) == 1)
        return (loop, pipe)
    }

    @Test func aPauseHoldsFromTheNextWaitAndAResumeUndoesIt() throws {
        let (loop, pipe) = try loopWithDataReady()
        loop.modify(pipe.read, events: 0)
        #expect(!handlerRuns(loop), "paused, yet its data woke the loop")
        loop.modify(pipe.read, events: EventLoop.readable)
        #expect(handlerRuns(loop), "resumed, its data did not wake the loop")
    }

    @Test func aPauseUndoneBeforeTheWaitLeavesTheDescriptorWatched() throws {
        let (loop, pipe) = try loopWithDataReady()
        loop.modify(pipe.read, events: 0)
        loop.modify(pipe.read, events: EventLoop.readable)
        #expect(handlerRuns(loop))
        loop.modify(pipe.read, events: 0)
        #expect(!handlerRuns(loop))
        loop.modify(pipe.read, events: EventLoop.readable)
        loop.modify(pipe.read, events: 0)
        #expect(!handlerRuns(loop), "paused last, yet heard")
    }
}
