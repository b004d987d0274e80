/// The fields of a line the kernel renders (`/proc/PID/stat`, `schedstat`, `children`), read in
/// place: separated by spaces or newlines (a run of them is one separator), none copied. The
/// sigstop freezer reads the `stat` of every process on the machine in one scan of `/proc`, so
/// a field costs a few instructions, not a `Substring` and an array.
struct KernelFields: IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position: Int

    /// The fields of `bytes` from `start` on.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) {
        self.bytes = bytes
        position = start
    }

    /// The next field, or `nil` after the last.
    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        while position < bytes.count, Self.isSeparator(bytes[position]) { position += 1 }
        let start = position
        while position < bytes.count, !Self.isSeparator(bytes[position]) { position += 1 }
        return position > start ? UnsafeBufferPointer(rebasing: bytes[start..<position]) : nil
    }

    /// The next field read as an unsigned decimal, or `nil`: no field left, not digits, or too large.
    mutating func nextDecimal() -> UInt64? {
        next().flatMap(Self.decimal)
    }

    /// Passes over `count` fields; whether there were that many.
    mutating func skip(_ count: Int) -> Bool {
        for _ in 0..<count where next() == nil { return false }
        return true
    }

    /// The unsigned decimal number `digits` spell, or `nil` (none, not digits, or too large).
    static func decimal(_ digits: some Collection<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// Reads the fields of `text`'s bytes in place.
    static func reading<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n")
    }
}
