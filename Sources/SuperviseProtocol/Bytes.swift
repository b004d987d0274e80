/// Byte-level helpers shared by the parser and the encoders.
enum Bytes {
    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    /// Splits off the field that starts at `index`: it ends at the next space or the end.
    /// Returns the field's range and where the following field starts (`nil` when no space
    /// follows it).
    static func field(
        in bytes: UnsafeBufferPointer<UInt8>, from index: Int
    ) -> (range: Range<Int>, next: Int?) {
        var end = index
        while end < bytes.count, bytes[end] != space { end += 1 }
        return (index..<end, end < bytes.count ? end + 1 : nil)
    }

    /// True when `bytes[range]` spells exactly `word`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { word in
            var offset = 0
            while offset < word.count {
                if bytes[range.lowerBound + offset] != word[offset] { return false }
                offset += 1
            }
            return true
        }
    }

    /// Parses a non-empty run of ASCII digits that fits `UInt64`.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty else { return nil }
        var value: UInt64 = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or stray bytes).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count, bytes[index] < 0x80 { index += 1 }
        if index == bytes.count { return true }
        var iterator = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Decodes `bytes[range]`, replacing invalid UTF-8 with U+FFFD.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Runs `body` on the bytes of `collection`, contiguous.
    static func withContiguous<R>(
        _ collection: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        if let result = collection.withContiguousStorageIfAvailable(body) { return result }
        return Array(collection).withUnsafeBufferPointer(body)
    }
}

/// Appending the pieces of an outgoing line.
extension Array where Element == UInt8 {
    mutating func appendASCII(_ word: StaticString) {
        word.withUTF8Buffer { append(contentsOf: $0) }
    }

    mutating func appendDecimal(_ value: UInt64) {
        guard value >= 10 else {
            append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        appendDecimal(value / 10)
        append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude)
    }

    /// Appends free text (the rest of a line): `\n` and `\r` become spaces, so the text can
    /// neither end the line early nor lose a trailing byte to `\r\n` stripping.
    mutating func appendFreeText(_ text: String) {
        for byte in text.utf8 {
            append(byte == Bytes.newline || byte == Bytes.carriageReturn ? Bytes.space : byte)
        }
    }

    /// Appends a single-word field: spaces and control characters become `_`, and an empty
    /// word is written as `_`, so the fields after it stay where a reader expects them.
    mutating func appendWord(_ word: String) {
        guard !word.isEmpty else {
            append(UInt8(ascii: "_"))
            return
        }
        for byte in word.utf8 {
            append(byte <= Bytes.space || byte == 0x7F ? UInt8(ascii: "_") : byte)
        }
    }

    /// Ends the line that starts at `start`: cuts it to `maxLineLength - 1` bytes on a UTF-8
    /// character boundary, then appends the newline.
    mutating func endLine(startedAt start: Int) {
        let limit = start + maxLineLength - 1
        if count > limit {
            var end = limit
            while end > start, self[end] & 0xC0 == 0x80 { end -= 1 }
            removeSubrange(end...)
        }
        append(Bytes.newline)
    }
}
