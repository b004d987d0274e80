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
        case .schedule(let id, let kind, let earliest, let requires):
            buffer.appendASCII("schedule ")
            buffer.append(contentsOf: id.rawValue.utf8)
            buffer.append(Bytes.space)
            buffer.append(contentsOf: kind.rawValue.utf8)
            if let earliest {
                buffer.appendASCII(" earliest=")
                buffer.appendDecimal(Self.millisecondsRoundedUp(earliest))
                buffer.appendASCII("ms")
            }
            if !requires.isEmpty {
                buffer.appendASCII(" requires=")
                for (index, condition) in requires.enumerated() {
                    if index > 0 { buffer.append(UInt8(ascii: ",")) }
                    buffer.appendWord(condition)
                }
            }
        case .cancel(let id):
            buffer.appendASCII("cancel ")
            buffer.append(contentsOf: id.rawValue.utf8)
        case .taskCompleted(let id, let success):
            buffer.appendASCII("task-completed ")
            buffer.append(contentsOf: id.rawValue.utf8)
            if success { buffer.appendASCII(" success") } else { buffer.appendASCII(" failure") }
        }
        buffer.endLine(startedAt: start)
    }

    /// Whole milliseconds, rounded up (an earliest time is never brought forward), a
    /// negative duration as 0, saturated at `Int64.max`.
    static func millisecondsRoundedUp(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, duration > .zero else { return 0 }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let part = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (sum, sumOverflow) = scaled.addingReportingOverflow(part)
        return overflow || sumOverflow ? Int64.max : sum
    }
}
