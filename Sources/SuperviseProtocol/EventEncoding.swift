extension Event: ProtocolLine {
    /// Appends the event as one protocol line, trailing `\n` included.
    ///
    /// The line never holds an inner `\n` and never exceeds ``maxLineLength`` bytes: in free
    /// text (an event's TEXT, an error's REQUEST) `\n` and `\r` become spaces; in a
    /// single-word field (an event's KIND) spaces and control characters become `_` and an
    /// empty word is written `_`; a line still too long is cut on a UTF-8 character boundary.
    public func write(into buffer: inout [UInt8]) {
        let start = buffer.count
        switch self {
        case .didFinishLaunching(let state, let reclaimed):
            buffer.appendASCII("did-finish-launching ")
            buffer.append(contentsOf: state.rawValue.utf8)
            if reclaimed { buffer.appendASCII(" reclaimed") }
        case .didBecomeActive:
            buffer.appendASCII("did-become-active")
        case .willResignActive:
            buffer.appendASCII("will-resign-active")
        case .didEnterBackground(let seq, let windowMS, let limitMS):
            buffer.appendASCII("did-enter-background ")
            buffer.appendDecimal(seq)
            buffer.append(Bytes.space)
            buffer.appendDecimal(windowMS)
            buffer.append(Bytes.space)
            buffer.appendDecimal(limitMS)
        case .event(let seq, let kind, let text):
            buffer.appendASCII("event ")
            buffer.appendDecimal(seq)
            buffer.append(Bytes.space)
            buffer.appendWord(kind)
            if let text, !text.isEmpty {
                buffer.append(Bytes.space)
                buffer.appendFreeText(text)
            }
        case .expire(let id):
            buffer.appendASCII("expire ")
            buffer.append(contentsOf: id.rawValue.utf8)
        case .task(let id, let kind, let limitMS):
            buffer.appendASCII("task ")
            buffer.append(contentsOf: id.rawValue.utf8)
            buffer.append(Bytes.space)
            buffer.append(contentsOf: kind.rawValue.utf8)
            buffer.append(Bytes.space)
            buffer.appendDecimal(limitMS)
        case .willEnterForeground:
            buffer.appendASCII("will-enter-foreground")
        case .willTerminate(let graceMS):
            buffer.appendASCII("will-terminate ")
            buffer.appendDecimal(graceMS)
        case .memoryWarning(let level):
            buffer.appendASCII("memory-warning ")
            buffer.append(contentsOf: level.rawValue.utf8)
        case .error(let error):
            buffer.appendASCII("error ")
            buffer.append(contentsOf: error.code.rawValue.utf8)
            buffer.append(Bytes.space)
            buffer.appendFreeText(error.request)
        }
        buffer.endLine(startedAt: start)
    }
}
