import SuperviseProtocol

/// Scratch memory for reading, shared by every reader of the (single-threaded) loop,
/// so a child costs no 64 KiB buffer of its own.
public final class ReadBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    public init(size: Int = 64 * 1024) {
        bytes = .allocate(byteCount: size, alignment: 16)
    }

    deinit { bytes.deallocate() }
}

/// Reads one child's requests pipe and splits it into lines.
public final class RequestReader {
    public let fd: Int32
    private var splitter = LineSplitter()
    private let buffer: ReadBuffer
    public private(set) var reachedEOF = false

    public init(fd: Int32, buffer: ReadBuffer) {
        self.fd = fd
        self.buffer = buffer
    }

    /// Reads up to `limit` bytes (stopping early at EAGAIN or EOF, or before a read when `canRead`
    /// says no) and hands over every complete line. Returns the number of bytes read.
    @discardableResult
    public func read(upTo limit: Int, while canRead: () -> Bool, _ handle: (LineSplitter.Line) -> Void) -> Int {
        var total = 0
        let bytes = buffer.bytes
        while total < limit, !reachedEOF, canRead() {
            let wanted = min(bytes.count, limit - total)
            switch Descriptor.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<wanted])) {
            case .bytes(let count):
                total += count
                splitter.append(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                while let line = splitter.next() { handle(line) }
                if count < bytes.count { return total }
            case .endOfFile:
                reachedEOF = true
                if let last = splitter.finish() { handle(last) }
                return total
            case .wouldBlock, .failed:
                return total
            }
        }
        return total
    }

    /// Closes the requests pipe, once the run is over (stop the loop waiting on it first).
    public func close() {
        Descriptor.close(fd)
    }
}
