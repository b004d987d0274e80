import SuperviseSystemCall
import SystemPackage

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
        for target in [Descriptor.standardOutput, Descriptor.standardError] {
            let ends: (readEnd: Int32, writeEnd: Int32)
            do throws(Errno) {
                // The supervisor's end non-blocking; the child's end blocking, as a terminal's would be.
                ends = try Descriptor.pipe().get()
                if case .failure(let error) = Descriptor.setNonBlocking(ends.readEnd) {
                    Descriptor.close(ends.readEnd)
                    Descriptor.close(ends.writeEnd)
                    throw error
                }
            } catch {
                closeAll()
                throw SupervisorError(.system, "cannot make an output pipe for '\(name)': \(error.sentenceText)",
                                      errno: error.rawValue)
            }
            streams.append(Stream(readFD: ends.readEnd, writeFD: ends.writeEnd, target: target,
                                  prefixer: OutputPrefixer(name: name, width: width)))
        }
    }

    /// The write ends the child gets as fds 1 and 2.
    public var childEnds: (stdout: Int32, stderr: Int32) { (streams[0].writeFD, streams[1].writeFD) }

    /// After the spawn: close the child's ends here and start reading.
    public func start() {
        for index in streams.indices {
            Descriptor.close(streams[index].writeFD)
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
            let result = buffer.withUnsafeMutableBytes { Descriptor.read(streams[index].readFD, into: $0) }
            switch result {
            case .bytes(let count):
                emit(index, streams[index].prefixer.feed(buffer[..<count]))
            case .wouldBlock:
                return
            case .endOfFile, .failed:
                closeStream(index)
                return
            }
        } while untilEmpty
    }

    private func closeStream(_ index: Int) {
        guard streams[index].open else { return }
        streams[index].open = false
        emit(index, streams[index].prefixer.finish())
        loop.remove(streams[index].readFD)
        Descriptor.close(streams[index].readFD)
    }

    private func emit(_ index: Int, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { Descriptor.writeAll(streams[index].target, $0) }
    }

    private func closeAll() {
        for stream in streams {
            Descriptor.close(stream.readFD)
            Descriptor.close(stream.writeFD)
        }
    }
}
