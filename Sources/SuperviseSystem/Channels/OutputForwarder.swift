import _SuperviseCShims
#if canImport(Glibc)
import Glibc
#endif

/// Passes one child's stdout and stderr through to the supervisor's, each line
/// prefixed with the child's name, whole lines only (several children).
public final class OutputForwarder {
    private struct Stream {
        let readFD: Int32
        let writeFD: Int32
        let target: Int32
        var prefixer: OutputPrefixer
        var open = true
    }

    private var streams: [Stream] = []
    private let loop: EventLoop

    /// Makes a pipe for each of stdout and stderr; `childEnds` go to the spawner.
    public init(name: String, width: Int, loop: EventLoop) throws(SupervisorError) {
        self.loop = loop
        for target: Int32 in [1, 2] {
            var fds: [Int32] = [-1, -1]
            guard _supervise_pipe2(&fds, O_CLOEXEC) == 0 else {
                let code = errno
                closeAll()
                throw SupervisorError(.system, "cannot make an output pipe for '\(name)': \(describeErrno(code))", errno: code)
            }
            setNonBlocking(fds[0])
            streams.append(Stream(readFD: fds[0], writeFD: fds[1], target: target,
                                  prefixer: OutputPrefixer(name: name, width: width)))
        }
    }

    /// The write ends the child gets as fds 1 and 2.
    public var childEnds: (stdout: Int32, stderr: Int32) { (streams[0].writeFD, streams[1].writeFD) }

    /// After the spawn: close the child's ends here and start reading.
    public func start() {
        for index in streams.indices {
            close(streams[index].writeFD)
            loop.add(streams[index].readFD) { [unowned self] _ in self.read(index, untilEmpty: false) }
        }
    }

    /// Reads what is left (the child's tree is gone, so nothing more will come) and closes.
    public func finish() {
        for index in streams.indices where streams[index].open { read(index, untilEmpty: true) }
        for index in streams.indices where streams[index].open { closeStream(index) }
    }

    private func read(_ index: Int, untilEmpty: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        repeat {
            let count = buffer.withUnsafeMutableBytes { bytes in
                retryingOnInterrupt { Glibc.read(streams[index].readFD, bytes.baseAddress!, bytes.count) }
            }
            guard count > 0 else {
                if count == 0 || errno != EAGAIN { closeStream(index) }
                return
            }
            emit(index, streams[index].prefixer.feed(buffer[..<count]))
        } while untilEmpty
    }

    private func closeStream(_ index: Int) {
        guard streams[index].open else { return }
        streams[index].open = false
        emit(index, streams[index].prefixer.finish())
        loop.remove(streams[index].readFD)
        close(streams[index].readFD)
    }

    private func emit(_ index: Int, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { writeAll(streams[index].target, $0) }
    }

    private func closeAll() {
        for stream in streams {
            close(stream.readFD)
            close(stream.writeFD)
        }
    }
}
