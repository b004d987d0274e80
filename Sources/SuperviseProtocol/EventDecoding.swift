extension Event {
    /// Decodes an event line, as a client reads it; a trailing `\n` or `\r\n` is allowed.
    ///
    /// Returns `nil` for an event this version does not know, or one whose fields are
    /// missing or malformed: children ignore those. Extra trailing fields are ignored. An
    /// empty TEXT decodes as `nil`; invalid UTF-8 in text is replaced by U+FFFD.
    public init?(line: some Collection<UInt8>) {
        guard let event = Bytes.withContiguous(line, { Self.decode(Self.trimmingNewline($0)) }) else {
            return nil
        }
        self = event
    }

    private static func trimmingNewline(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var end = bytes.count
        if end > 0, bytes[end - 1] == Bytes.newline { end -= 1 }
        if end > 0, bytes[end - 1] == Bytes.carriageReturn { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[..<end])
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> Event? {
        let verb = Bytes.field(in: bytes, from: 0)
        var fields = FieldReader(bytes: bytes, next: verb.next)
        func verbIs(_ word: StaticString) -> Bool { Bytes.equals(bytes, verb.range, word) }

        if verbIs("did-become-active") { return .didBecomeActive }
        if verbIs("will-resign-active") { return .willResignActive }
        if verbIs("will-enter-foreground") { return .willEnterForeground }
        if verbIs("did-finish-launching") {
            guard let state = fields.word() else { return nil }
            let reclaimed = fields.word().map { Bytes.equals(bytes, $0, "reclaimed") } ?? false
            if Bytes.equals(bytes, state, "foreground") { return .didFinishLaunching(.foreground, reclaimed: reclaimed) }
            if Bytes.equals(bytes, state, "background") { return .didFinishLaunching(.background, reclaimed: reclaimed) }
            return nil
        }
        if verbIs("did-enter-background") {
            guard let seq = fields.unsigned(), let window = fields.milliseconds(),
                  let limit = fields.milliseconds()
            else { return nil }
            return .didEnterBackground(seq: seq, windowMS: window, limitMS: limit)
        }
        if verbIs("event") {
            guard let seq = fields.unsigned(), let kind = fields.word(), !kind.isEmpty else { return nil }
            let text = fields.rest()
            return .event(
                seq: seq, kind: Bytes.string(bytes, kind),
                text: text.isEmpty ? nil : Bytes.string(bytes, text))
        }
        if verbIs("expire") {
            guard let range = fields.word(), let id = TaskID(bytes, range) else { return nil }
            return .expire(id)
        }
        if verbIs("task") {
            guard let range = fields.word(), let id = TaskID(bytes, range), let kindRange = fields.word(),
                  let kind = ScheduledTaskKind(rawValue: Bytes.string(bytes, kindRange)),
                  let limit = fields.milliseconds()
            else { return nil }
            return .task(id: id, kind: kind, limitMS: limit)
        }
        if verbIs("will-terminate") {
            guard let grace = fields.milliseconds() else { return nil }
            return .willTerminate(graceMS: grace)
        }
        if verbIs("memory-warning") {
            guard let range = fields.word(),
                  let level = MemoryWarning(rawValue: Bytes.string(bytes, range))
            else { return nil }
            return .memoryWarning(level)
        }
        if verbIs("error") {
            guard let range = fields.word(),
                  let code = ProtocolErrorCode(rawValue: Bytes.string(bytes, range))
            else { return nil }
            return .error(RequestError(code: code, request: Bytes.string(bytes, fields.rest())))
        }
        return nil
    }
}

/// Reads the space-separated fields of a line, left to right.
private struct FieldReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var next: Int?

    /// The next single-word field, or `nil` when there is none.
    mutating func word() -> Range<Int>? {
        guard let start = next else { return nil }
        let field = Bytes.field(in: bytes, from: start)
        next = field.next
        return field.range
    }

    /// The next field as an unsigned decimal.
    mutating func unsigned() -> UInt64? {
        word().flatMap { Bytes.decimal(bytes, $0) }
    }

    /// The next field as a non-negative count of milliseconds.
    mutating func milliseconds() -> Int64? {
        unsigned().flatMap { Int64(exactly: $0) }
    }

    /// Everything that is left: free text (empty when there is none).
    mutating func rest() -> Range<Int> {
        guard let start = next else { return bytes.count..<bytes.count }
        next = nil
        return start..<bytes.count
    }
}
