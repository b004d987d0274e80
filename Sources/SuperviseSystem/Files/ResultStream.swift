import SystemPackage

/// Text on its way into a file, written in chunks: what is appended is kept until
/// ``chunkSize`` bytes wait, then written, so memory stays bounded whatever the file's size.
/// After the first failed write the rest is dropped; ``finish()`` says why.
public struct ResultStream {
    /// How many bytes wait at most before they are written.
    public static let chunkSize = 64 * 1024

    private let fd: Int32
    private var pending = ""
    private var failure: Errno?

    /// Writes what `produce` appends to `fd`; the first error, if any.
    public static func write(to fd: Int32, _ produce: (inout ResultStream) -> Void) -> Result<Void, Errno> {
        var stream = ResultStream(fd: fd)
        produce(&stream)
        return stream.finish()
    }

    private init(fd: Int32) {
        self.fd = fd
        pending.reserveCapacity(Self.chunkSize + 1024)
    }

    /// Appends `text`; writes what waits once it reaches ``chunkSize``.
    public mutating func append(_ text: String) {
        guard failure == nil else { return }
        pending += text
        if pending.utf8.count >= Self.chunkSize { flush() }
    }

    /// Writes what waits; the first error of the whole stream, if any.
    private mutating func finish() -> Result<Void, Errno> {
        flush()
        return failure.map { .failure($0) } ?? .success(())
    }

    private mutating func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        if case .failure(let error) = Descriptor.writeAll(fd, pending) { failure = error }
        pending.removeAll(keepingCapacity: true)
    }
}
