import SuperviseSystem

/// A member of a JSON object written as it is produced: a value, or an array produced one
/// element at a time, so that writing a large report never holds it whole (issue 27). The
/// bytes are those of ``JSONValue/serialized()`` for the same values.
enum StreamedJSON {
    case value(JSONValue)
    case elements(AnySequence<StreamedJSON>)
    case object([(String, StreamedJSON)])

    /// An array of `values`, each made by `element` only when it is written.
    static func array<S: Sequence>(_ values: S, _ element: @escaping (S.Element) -> StreamedJSON) -> StreamedJSON {
        .elements(AnySequence(values.lazy.map(element)))
    }

    func write(into out: inout ResultStream) {
        switch self {
        case .value(let value):
            out.append(value.serialized())
        case .elements(let values):
            out.append("[")
            var first = true
            for value in values {
                if !first { out.append(",") }
                value.write(into: &out)
                first = false
            }
            out.append("]")
        case .object(let members):
            out.append("{")
            for (index, (key, value)) in members.enumerated() {
                out.append((index > 0 ? "," : "") + JSONValue.string(key).serialized() + ":")
                value.write(into: &out)
            }
            out.append("}")
        }
    }
}
