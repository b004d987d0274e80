/// Prefixes every line of one child's output with `NAME | `, as docker compose does.
///
/// Pure: bytes in, bytes out. A partial line is held until its newline, so
/// the lines of two children never interleave mid-line; a partial line that
/// grows past ``maxHeldBytes`` is written anyway (prefixed once, its
/// continuation without a prefix). Bytes pass through unchanged otherwise.
public struct OutputPrefixer: Sendable {
    /// The most bytes of a partial line held back before it is written anyway.
    public static let maxHeldBytes = 16 * 1024

    /// The bytes written at the start of each line: the name padded to the width, then ` | `.
    public let prefix: [UInt8]
    private var held: [UInt8] = []
    /// The current line's prefix has been written (a long line was flushed early).
    private var midLine = false

    /// A prefixer for the child `name`, its name padded with spaces to `width` characters.
    public init(name: String, width: Int) {
        let padding = String(repeating: " ", count: max(0, width - name.count))
        prefix = Array((name + padding + " | ").utf8)
    }

    /// The width that aligns the prefixes of all `names`: the longest name's length.
    public static func width(for names: some Sequence<String>) -> Int {
        names.reduce(0) { max($0, $1.count) }
    }

    /// The output for the next `bytes` of the child's stream: every complete
    /// line, prefixed, plus a partial line if it grew too long to hold.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            startLineIfNeeded(&output)
            output += held
            output += rest[...newline]
            held.removeAll(keepingCapacity: true)
            midLine = false
            rest = rest[rest.index(after: newline)...]
        }
        held += rest
        if held.count > Self.maxHeldBytes {
            startLineIfNeeded(&output)
            output += held
            held.removeAll(keepingCapacity: true)
            midLine = true
        }
        return output
    }

    /// The output at end of stream: a held or unfinished line, ended with a newline.
    public mutating func finish() -> [UInt8] {
        guard midLine || !held.isEmpty else { return [] }
        var output: [UInt8] = []
        startLineIfNeeded(&output)
        output += held
        output.append(UInt8(ascii: "\n"))
        held.removeAll()
        midLine = false
        return output
    }

    private func startLineIfNeeded(_ output: inout [UInt8]) {
        if !midLine { output += prefix }
    }
}
