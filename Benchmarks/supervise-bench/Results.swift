import Foundation

/// How a figure's numbers read: a duration in nanoseconds, a rate, a size or a count.
enum Unit: String, Codable {
    case nanoseconds, perSecond = "per_second", kilobytes, count, milliseconds, ratio
}

/// One line of the table: a subject (supervise or a peer) measured for one figure.
struct Row: Codable {
    let figure: String
    let subject: String
    let unit: Unit
    let summary: Summary
    /// The target this row is judged against, in words; empty for peers and floors.
    var target = ""
    /// Whether the row meets its target; nil when it has none.
    var meets: Bool?
    var note = ""
}

/// Everything one run measured, as written to bench-results/latest.json.
struct Results: Codable {
    var date = ISO8601DateFormatter().string(from: Date())
    var mode: String
    var machine: String
    var kernel: String
    var supervise: String
    var missingPeers: [String] = []
    var skipped: [String] = []
    var rows: [Row] = []
}

/// Formats a value of `unit` for the table.
func format(_ value: Double, _ unit: Unit) -> String {
    switch unit {
    case .nanoseconds:
        if abs(value) >= 1_000_000_000 { return String(format: "%.2f s", value / 1e9) }
        if abs(value) >= 1_000_000 { return String(format: "%.2f ms", value / 1e6) }
        return String(format: "%.1f µs", value / 1e3)
    case .milliseconds: return String(format: "%+.3f ms", value)
    case .perSecond: return String(format: "%.0fk/s", value / 1e3)
    case .kilobytes: return String(format: "%.1f kB", value)
    case .count: return String(format: "%.0f", value)
    case .ratio: return String(format: "%.2f×", value)
    }
}

/// Prints the table: one row per subject, figures in the order measured.
func printTable(_ results: Results) {
    let header = ["figure", "subject", "n", "p50", "p99", "target", ""]
    var lines = [header]
    for row in results.rows {
        let verdict = row.meets.map { $0 ? "ok" : "MISS" } ?? ""
        lines.append([row.figure, row.subject, String(row.summary.count), format(row.summary.p50, row.unit),
                      format(row.summary.p99, row.unit), row.target, verdict + (row.note.isEmpty ? "" : " " + row.note)])
    }
    let widths = (0..<header.count).map { column in lines.map { $0[column].count }.max() ?? 0 }
    for (index, line) in lines.enumerated() {
        let padded = line.enumerated().map { column, text in
            text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
        }
        print(padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
    }
    print("\nmachine: \(results.machine); kernel \(results.kernel). A shared 2-core VM: p50s are medians over the samples, p99s are noisy.")
    if !results.missingPeers.isEmpty {
        print("missing peers (skipped): \(results.missingPeers.joined(separator: ", ")); Benchmarks/install-peers.sh installs them")
    }
    for skip in results.skipped { print("skipped: \(skip)") }
}
