import SuperviseConfig
/// `status` answer lines (one JSON object a child) as a table for people: `supervise ctl
/// status --format table`, the default on a terminal.
public enum StatusTable {
    /// The table, header first, columns padded to their widest cell; a line that is not a
    /// status object is shown as it is. A child stopped by a signal says so with its state.
    public static func render(_ lines: [String]) -> String {
        var rows = [["NAME", "STATE", "PID", "AWARE", "FREEZER", "TASKS", "SCHEDULED"]]
        var others: [String] = []
        for line in lines {
            guard case .object(let members)? = try? JSONReader.parse(Array(line.utf8)) else {
                others.append(line)
                continue
            }
            func cell(_ key: String) -> String {
                switch members.first(where: { $0.0 == key })?.1 {
                case .string(let text)?: ControlEscapes.escaped(text)
                case .int(let number)?: String(number)
                case .bool(let flag)?: flag ? "yes" : "no"
                case .array(let items)?: String(items.count)
                default: "-"
                }
            }
            var row = ["name", "state", "pid", "aware", "freezer", "tasks", "scheduled"].map(cell)
            if cell("stopped") != "-" { row[1] += " (stopped: \(cell("stopped")))" }
            rows.append(row)
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = ""
        for row in rows {
            let cells = row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padding(to: widths[column])
            }
            out += cells.joined(separator: "  ") + "\n"
        }
        return out + others.map { $0 + "\n" }.joined()
    }
}

private extension String {
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
