import SuperviseConfig
/// A JSON document, written without Foundation (the report, `status` lines, JSON logs).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Keys keep the order given, so reports read the same every time.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized() == rhs.serialized()
    }

    /// Compact JSON text on one line.
    public func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    public func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): Self.writeNumber(value, into: &out)
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    /// Finite numbers with at most three decimals (milliseconds to the microsecond); others as null.
    private static func writeNumber(_ value: Double, into out: inout String) {
        guard value.isFinite else { out += "null"; return }
        let thousandths = (value * 1000).rounded()
        guard abs(thousandths) < 9e15 else { out += String(value); return }
        let whole = Int64(thousandths)
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        out += sign + String(magnitude / 1000)
        let fraction = magnitude % 1000
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            out += "." + digits
        }
    }

    private static func writeString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if let escape = ControlEscapes.escape(scalar) { out += escape } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }
}

extension JSONValue {
    /// `.string`, or `.null` for `nil`.
    static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// `.double`, or `.null` for `nil`.
    static func double(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
}
