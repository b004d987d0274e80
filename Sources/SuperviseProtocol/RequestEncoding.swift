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
        case .schedule(let request):
            buffer.appendASCII("schedule ")
            buffer.append(contentsOf: request.id.rawValue.utf8)
            buffer.append(Bytes.space)
            buffer.append(contentsOf: request.kind.rawValue.utf8)
            if request.earliestMS > 0 {
                buffer.appendASCII(" earliest=")
                buffer.appendDecimal(request.earliestMS)
                buffer.appendASCII("ms")
            }
            if !request.requires.isEmpty {
                buffer.appendASCII(" requires=")
                buffer.append(contentsOf: request.requires.sorted().map(\.rawValue).joined(separator: ",").utf8)
            }
        case .cancel(let id):
            buffer.appendASCII("cancel ")
            buffer.append(contentsOf: id.rawValue.utf8)
        case .taskCompleted(let id, let success):
            buffer.appendASCII("task-completed ")
            buffer.append(contentsOf: id.rawValue.utf8)
            buffer.appendASCII(success ? " success" : " failure")
        }
        buffer.endLine(startedAt: start)
    }
}
