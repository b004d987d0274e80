/// The kernel's pressure stall information for one resource, as `/proc/pressure/memory` or a
/// cgroup's `memory.pressure` says it: the share of wall time in which some (or all) runnable
/// tasks waited for the resource, averaged over 10, 60 and 300 s, and the total stall time.
public struct PressureStall: Equatable, Sendable {
    /// One line of the file: `some …` or `full …`.
    public struct Line: Equatable, Sendable {
        /// Percent of the last 10, 60 and 300 seconds stalled.
        public var avg10: Double
        public var avg60: Double
        public var avg300: Double
        /// Total stall time since boot (or since the cgroup was made).
        public var total: Duration

        public init(avg10: Double, avg60: Double, avg300: Double, total: Duration) {
            self.avg10 = avg10
            self.avg60 = avg60
            self.avg300 = avg300
            self.total = total
        }
    }

    /// Time in which at least one task stalled.
    public var some: Line
    /// Time in which every non-idle task stalled at once; absent from old kernels' `cpu` file.
    public var full: Line?

    public init(some: Line, full: Line?) {
        self.some = some
        self.full = full
    }

    /// Parses the text of a pressure file; `nil` when it has no well-formed `some` line.
    public init?(text: String) {
        var some: Line?
        var full: Line?
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let kind = words.first, let parsed = Self.line(words.dropFirst()) else { continue }
            if kind == "some" { some = parsed } else if kind == "full" { full = parsed }
        }
        guard let some else { return nil }
        self.init(some: some, full: full)
    }

    /// `avg10=… avg60=… avg300=… total=…` (total in microseconds), in any order.
    private static func line(_ fields: ArraySlice<Substring>) -> Line? {
        var values: [Substring: Substring] = [:]
        for field in fields {
            guard let equals = field.firstIndex(of: "=") else { return nil }
            values[field[..<equals]] = field[field.index(after: equals)...]
        }
        guard let avg10 = values["avg10"].flatMap({ Double($0) }), avg10.isFinite,
              let avg60 = values["avg60"].flatMap({ Double($0) }), avg60.isFinite,
              let avg300 = values["avg300"].flatMap({ Double($0) }), avg300.isFinite,
              let micros = values["total"].flatMap({ UInt64($0) })
        else { return nil }
        return Line(avg10: avg10, avg60: avg60, avg300: avg300,
                    total: .microseconds(Int64(clamping: micros)))
    }
}
