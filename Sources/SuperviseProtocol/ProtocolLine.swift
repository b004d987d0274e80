/// A message that is written as one protocol line: an ``Event`` or a ``Request``.
public protocol ProtocolLine {
    /// Appends the message as one protocol line, trailing `\n` included, never over
    /// ``maxLineLength`` bytes.
    func write(into buffer: inout [UInt8])
}

extension ProtocolLine {
    /// The message as one protocol line, trailing `\n` included: what one `write(2)` sends.
    public var line: String {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
