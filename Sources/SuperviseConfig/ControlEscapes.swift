/// Escapes for the control characters that must never reach a log line or a JSON string raw:
/// a child's ESC, BEL or CR in the text log could otherwise forge or hide a line.
public enum ControlEscapes {
    /// `\n`, `\r`, `\t`, or `\u001b` for the other C0 controls, DEL and the C1 controls;
    /// `nil` for any other scalar.
    public static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            return nil
        }
    }

    /// `text` with every control character escaped, so it stays on one line and shows as written.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { escape($0) != nil }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if let escape = escape(scalar) { out += escape } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
