/// Escaping for XML 1.0 text and attribute values.
///
/// `&`, `<`, `>`, `"` and `'` become entities; a character XML 1.0 forbids (C0 controls other
/// than tab, newline and carriage return; U+FFFE, U+FFFF) is replaced by its visible escape
/// (`\u001b`, as in the log), since no entity may stand for it.
public enum XMLText {
    /// `text` for the content of an element: whitespace kept, `\r` as `&#13;` so no parser turns it into `\n`.
    public static func escapedText(_ text: String) -> String {
        escaped(text, inAttribute: false)
    }

    /// `text` for a double-quoted attribute value: `\t`, `\n` and `\r` as character references,
    /// which attribute-value normalization would otherwise turn into spaces.
    public static func escapedAttribute(_ text: String) -> String {
        escaped(text, inAttribute: true)
    }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\r": out += "&#13;"
            case "\n", "\t": if inAttribute { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\\u" + hex4(scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex4(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
