/// A value of the TOML subset the config file is written in.
indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    /// A float and its text as written (underscores removed), so durations like
    /// `2.5` convert exactly.
    case float(Double, text: String)
    case boolean(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The TOML type's name, for error messages.
    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML table that keeps its keys in the order written and the line of each.
struct TOMLTable: Equatable, Sendable {
    /// One `key = value`, or a sub-table, with the line it was written on.
    struct Entry: Equatable, Sendable {
        var key: String
        var value: TOMLValue
        var line: Int
    }

    /// How a table came to exist, which decides whether it may be added to.
    enum Origin: Equatable, Sendable {
        /// Named by a `[header]`.
        case header
        /// Only a prefix of a longer `[header]` so far; a `[header]` of its own may follow.
        case implied
        /// Made by a dotted key (`a.b = 1`).
        case dottedKey
        /// Written `{ … }`: closed once written.
        case inline
    }

    var entries: [Entry] = []
    /// The line where the table was defined (its header, key or first mention).
    var line: Int
    var origin: Origin

    subscript(key: String) -> Entry? {
        entries.first { $0.key == key }
    }
}
