import Foundation

/// One process as `/proc/PID/stat` shows it. `startTime` (clock ticks after boot) tells a
/// process from a later one that reuses its pid.
struct ProcEntry: Hashable {
    var pid: Int32
    var parent: Int32
    var group: Int32
    var state: Character
    var startTime: UInt64
}

/// Reads processes, trees and thread states from `/proc`.
enum ProcTable {
    /// The process `pid` is now, or nil when there is none.
    static func entry(_ pid: Int32) -> ProcEntry? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return parse(text, pid: pid)
    }

    /// Every process on the machine.
    static func all() -> [ProcEntry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).compactMap(entry)
    }

    /// `root` and every process below it, following parent links.
    static func tree(of root: Int32) -> [ProcEntry] {
        let everyone = all()
        var found = everyone.filter { $0.pid == root }
        var frontier: Set<Int32> = [root]
        while !frontier.isEmpty {
            let children = everyone.filter { frontier.contains($0.parent) }
            found += children
            frontier = Set(children.map(\.pid))
        }
        return found
    }

    /// The state letter of each thread of `pid` (`T` stopped, `S` sleeping, `D` uninterruptible…).
    static func threadStates(_ pid: Int32) -> [Character] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.compactMap { thread in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8))
                .flatMap { parse($0, pid: pid) }?.state
        }
    }

    /// The command line of `pid` with spaces between arguments (a process may rewrite it, as
    /// PostgreSQL and nginx do: `postgres: checkpointer`, `nginx: worker process`).
    static func commandLine(_ pid: Int32) -> String {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// Whether `process` still runs: the same pid and start time, and not a zombie.
    static func isAlive(_ process: ProcEntry) -> Bool {
        guard let now = entry(process.pid), now.startTime == process.startTime else { return false }
        return now.state != "Z" && now.state != "X"
    }

    /// Fields after the command name, which is in parentheses and may itself hold spaces and `)`.
    private static func parse(_ text: String, pid: Int32) -> ProcEntry? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]),
              let group = Int32(fields[2]), let start = UInt64(fields[19]) else { return nil }
        return ProcEntry(pid: pid, parent: parent, group: group, state: state, startTime: start)
    }
}
