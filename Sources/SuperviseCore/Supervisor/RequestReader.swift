import SuperviseProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Reads one child's requests pipe and splits it into lines.
final class RequestReader {
    let fd: Int32
    private var splitter = LineSplitter()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private(set) var reachedEOF = false

    init(fd: Int32) { self.fd = fd }

    /// Reads up to `limit` bytes (stopping early at EAGAIN or EOF) and hands over every complete line.
    /// Returns the number of bytes read.
    @discardableResult
    func read(upTo limit: Int, _ handle: (LineSplitter.Line) -> Void) -> Int {
        var total = 0
        while total < limit, !reachedEOF {
            let count = buffer.withUnsafeMutableBytes { bytes in
                retryingOnInterrupt { Glibc.read(fd, bytes.baseAddress!, min(bytes.count, limit - total)) }
            }
            if count > 0 {
                total += count
                buffer.withUnsafeBytes { splitter.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                while let line = splitter.next() { handle(line) }
                if count < buffer.count { break }
            } else {
                if count == 0 {
                    reachedEOF = true
                    if let last = splitter.finish() { handle(last) }
                }
                break
            }
        }
        return total
    }
}
