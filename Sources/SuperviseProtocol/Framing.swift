/// Splits a byte stream into protocol lines.
///
/// A line is everything up to `\n`, without the `\n`; a `\r` right before the `\n` is
/// stripped. A line whose length on the wire, newline (and any `\r`) included, exceeds
/// `maxLineLength` is reported once as ``Line/tooLong(prefix:)`` as soon as that is known,
/// and the rest of it is dropped up to the next newline without being buffered.
///
/// After each ``append(_:)``, call ``next()`` until it returns `nil`; at end of input, call
/// ``finish()`` until it returns `nil`.
public struct LineSplitter: Sendable {
    /// One result of splitting.
    public enum Line: Equatable, Sendable {
        /// A complete line, without its `\n` (or `\r\n`).
        case line([UInt8])
        /// A line over the limit: its first ``LineSplitter/tooLongPrefixLength`` bytes.
        case tooLong(prefix: [UInt8])
    }

    /// How many bytes of a too-long line ``Line/tooLong(prefix:)`` keeps.
    public static let tooLongPrefixLength = 200

    /// The longest line accepted, newline included.
    public let maxLineLength: Int

    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var readIndex = 0
    /// Where the search for the next newline resumes (bytes before it hold none).
    private var scanIndex = 0
    /// True while the rest of a too-long line is being dropped.
    private var discarding = false

    /// Creates a splitter that accepts lines of at most `maxLineLength` bytes, newline included.
    public init(maxLineLength: Int = SuperviseProtocol.maxLineLength) {
        precondition(maxLineLength >= 1, "maxLineLength must allow at least the newline")
        self.maxLineLength = maxLineLength
    }

    /// True when bytes not yet returned are buffered, or the tail of a too-long line is
    /// being dropped. Once ``next()`` has returned `nil`, this means the input so far ends
    /// mid-line.
    public var hasPartialLine: Bool {
        discarding || readIndex < buffer.count
    }

    /// Adds bytes read from the stream.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: UnsafeBufferPointer(
            start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }

    /// Adds bytes read from the stream.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        compact()
        guard discarding else {
            buffer.append(contentsOf: bytes)
            return
        }
        let handled: Void? = bytes.withContiguousStorageIfAvailable { appendWhileDiscarding($0) }
        if handled == nil {
            Array(bytes).withUnsafeBufferPointer { appendWhileDiscarding($0) }
        }
    }

    /// Returns the next complete line, or `nil` when more input is needed.
    public mutating func next() -> Line? {
        precondition(!discarding || readIndex == buffer.count, "discarded bytes are never buffered")
        let start = readIndex
        if let newline = firstNewline(from: max(scanIndex, start)) {
            readIndex = newline + 1
            scanIndex = readIndex
            if newline - start + 1 > maxLineLength {
                return .tooLong(prefix: prefix(from: start, to: newline))
            }
            var end = newline
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return .line(Array(buffer[start..<end]))
        }
        scanIndex = buffer.count
        guard buffer.count - start >= maxLineLength else { return nil }
        // Even the newline still to come would take it over the limit.
        let line = Line.tooLong(prefix: prefix(from: start, to: buffer.count))
        buffer.removeAll(keepingCapacity: true)
        readIndex = 0
        scanIndex = 0
        discarding = true
        return line
    }

    /// At end of input: returns the remaining lines, then the unterminated last line (if
    /// any), then `nil`, after which the splitter is empty.
    public mutating func finish() -> Line? {
        if let line = next() { return line }
        discarding = false
        guard readIndex < buffer.count else { return nil }
        let line = Array(buffer[readIndex...])
        buffer.removeAll(keepingCapacity: true)
        readIndex = 0
        scanIndex = 0
        return .line(line)
    }

    private mutating func appendWhileDiscarding(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
        discarding = false
        buffer.append(contentsOf: bytes[(newline + 1)...])
    }

    private func firstNewline(from index: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            var index = index
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") { return index }
                index += 1
            }
            return nil
        }
    }

    /// The first bytes of the too-long line in `buffer[start..<end]`, never past its end.
    private func prefix(from start: Int, to end: Int) -> [UInt8] {
        Array(buffer[start..<min(end, start + Self.tooLongPrefixLength)])
    }

    /// Drops consumed bytes when that is cheap relative to the work already done.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if readIndex >= 4096, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
        } else {
            return
        }
        scanIndex = max(0, scanIndex - readIndex)
        readIndex = 0
    }
}
