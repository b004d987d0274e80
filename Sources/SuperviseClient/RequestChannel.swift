import SuperviseSystemCall
import Glibc
import SuperviseProtocol

/// The write end of the requests pipe: one `write(2)` per request.
///
/// A write to a pipe whose reader is gone raises SIGPIPE, which a worker has at its default
/// disposition (terminate). The channel blocks SIGPIPE on the writing thread for the
/// duration of the write and consumes the signal it caused, so a vanished supervisor
/// costs a failed write, never the worker's life.
struct RequestChannel: Sendable {
    let fd: Int32

    /// Writes `request` as one line. Returns false when the supervisor can't be reached.
    @discardableResult
    func send(_ request: Request) -> Bool {
        var line: [UInt8] = []
        request.write(into: &line)
        return line.withUnsafeBytes { bytes in
            withSIGPIPEBlocked { writeAll(bytes) }
        }
    }

    /// Writes all of `bytes`; false (with `errno` set) when a write failed.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard case .success(let written) = valueOrErrno({ write(fd, bytes.baseAddress! + offset, bytes.count - offset) })
            else { return false }
            offset += written
        }
        return true
    }

    private func withSIGPIPEBlocked(_ body: () -> Bool) -> Bool {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }

        var pending = sigset_t()
        sigpending(&pending)
        let wasPending = sigismember(&pending, SIGPIPE) == 1
        let succeeded = body()
        if !succeeded, errno == EPIPE, !wasPending {
            var noWait = timespec()
            sigtimedwait(&pipeSignal, nil, &noWait)
        }
        return succeeded
    }
}
