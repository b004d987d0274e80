/// What every parser's error message must look like, whatever the input.
enum ErrorShape {
    /// The longest message accepted: a message quotes a bounded excerpt of the input, never
    /// all of it, so a megabyte of garbage gives a line a person can read.
    static let maxBytes = 1024

    /// Why `message` is not one bounded line of visible text, or `nil` when it is.
    static func problem(_ message: String) -> String? {
        if let control = message.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "holds control character U+\(String(control.value, radix: 16))"
        }
        if message.utf8.count > maxBytes { return "is \(message.utf8.count) bytes long" }
        if message.isEmpty { return "is empty" }
        return nil
    }

    /// A short, printable rendering of a fuzzed input for a failure message.
    static func show(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(300), as: UTF8.self).unicodeScalars
            .map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F ? String($0) : $0.escaped(asASCII: true) }
            .joined()
        return "\"\(text)\"" + (bytes.count > 300 ? "… (\(bytes.count) bytes)" : "")
    }
}
