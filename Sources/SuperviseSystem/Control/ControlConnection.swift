import SuperviseProtocol

/// The supervisor's end of one control connection: one command line in, answer lines out, a
/// final outcome line, then closed.
///
/// Reads are bounded (a line over ``maxLineLength`` is refused), and so is the output kept for a
/// client that does not read: past ``maxPendingOutput`` bytes, answer lines are dropped and the
/// outcome line says how many. Nothing here blocks.
public final class ControlConnection {
    public let fd: Int32
    public let peer: PeerCredentials

    /// The longest command line, newline included: as on stdin.
    public static let maxLineLength = 64 * 1024
    /// The most output kept for a client before answer lines are dropped.
    public static let maxPendingOutput = 1024 * 1024

    private var splitter = LineSplitter(maxLineLength: ControlConnection.maxLineLength)
    private var output: [UInt8] = []
    private var written = 0
    /// Bytes of answer lines dropped because the client did not read them.
    public private(set) var droppedBytes = 0
    /// The outcome line is queued: close once everything is written.
    public private(set) var isFinished = false
    /// The peer closed its end, or a write to it failed.
    public private(set) var isGone = false

    public init(fd: Int32, peer: PeerCredentials) {
        self.fd = fd
        self.peer = peer
    }

    /// What reading found.
    public enum Input: Equatable {
        /// A whole command line, without its newline.
        case line(String)
        /// A line over ``maxLineLength``: its first bytes.
        case tooLong(String)
        /// Nothing complete yet.
        case incomplete
        /// The peer closed its end (or reading failed) before a whole line.
        case closed
    }

    /// Reads what the peer has sent now (up to 16 KiB at a time, until EAGAIN) and returns the
    /// first whole line, if any. After the line, anything more the client sends is read and
    /// ignored; its end is reported as `.closed`.
    public func read() -> Input {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            switch chunk.withUnsafeMutableBytes({ Descriptor.read(fd, into: $0) }) {
            case .bytes(let count):
                chunk.withUnsafeBytes { splitter.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                switch splitter.next() {
                case .line(let bytes): return .line(String(decoding: bytes, as: UTF8.self))
                case .tooLong(let prefix): return .tooLong(String(decoding: prefix, as: UTF8.self))
                case nil: continue
                }
            case .wouldBlock:
                return .incomplete
            case .endOfFile, .failed:
                isGone = true
                return .closed
            }
        }
    }

    /// Queues `line` (a newline is added) unless the client already has too much unread output.
    public func send(_ line: String) {
        guard !isFinished else { return }
        let size = line.utf8.count + 1
        guard output.count - written + size <= Self.maxPendingOutput else {
            droppedBytes += size
            return
        }
        output.append(contentsOf: line.utf8)
        output.append(UInt8(ascii: "\n"))
    }

    /// Queues the outcome line, always kept, after a note of dropped output if any; the
    /// connection closes once it is written.
    public func finish(_ outcome: String) {
        guard !isFinished else { return }
        if droppedBytes > 0 {
            let note = "note: \(droppedBytes) bytes of answer dropped: the client did not read them\n"
            output.append(contentsOf: note.utf8)
        }
        output.append(contentsOf: outcome.utf8)
        output.append(UInt8(ascii: "\n"))
        isFinished = true
    }

    /// Writes what the socket takes now; `true` when nothing is left to write.
    @discardableResult
    public func flush() -> Bool {
        guard !isGone else { return true }
        let (count, error) = output.withUnsafeBytes {
            Descriptor.write(fd, UnsafeRawBufferPointer(rebasing: $0[written...]))
        }
        written += count
        if let error, error != .resourceTemporarilyUnavailable { isGone = true }
        if written == output.count {
            output.removeAll(keepingCapacity: false)
            written = 0
        }
        return isGone || written == output.count
    }

    /// Closes the connection.
    public func close() {
        Descriptor.close(fd)
    }
}
