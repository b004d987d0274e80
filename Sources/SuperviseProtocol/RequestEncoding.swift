extension Request: ProtocolLine {
    /// Appends the request as one protocol line, trailing `\n` included.
    ///
    /// In a task name `\n` and `\r` become spaces, an empty name is left out, and a line
    /// over ``maxLineLength`` bytes is cut on a UTF-8 character boundary.
    public func write(into buffer: inout [UInt8]) {
        let start = buffer.count
        switch self {
        case .hello:
            buffer.appendASCII("hello ")
            buffer.appendDecimal(UInt64(protocolVersion))
        case .done(let seq):
            buffer.appendASCII("done ")
            buffer.appendDecimal(seq)
        case .begin(let id, let name):
            buffer.appendASCII("begin ")
            buffer.append(contentsOf: id.rawValue.utf8)
            if let name, !name.isEmpty {
                buffer.append(Bytes.space)
                buffer.appendFreeText(name)
            }
        case .end(let id):
            buffer.appendASCII("end ")
            buffer.append(contentsOf: id.rawValue.utf8)
        }
        buffer.endLine(startedAt: start)
    }
}
