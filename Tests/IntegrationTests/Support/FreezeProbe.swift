import Foundation

/// Asks the kernel, not supervise, whether each process of a tree is frozen: through the
/// child's cgroup for the cgroup backends, through every thread's state for SIGSTOP.
struct FreezeProbe {
    var backend: Backend
    /// The child's cgroup directory, from its `status` line (nil with sigstop).
    var cgroup: String?

    /// One line per process of `tree` that is not frozen, saying why; empty when all are.
    func unfrozen(_ tree: [ProcessEntry]) -> [String] {
        switch backend {
        case .cgroup2:
            return cgroupProblems(tree, file: "cgroup.events", saying: "frozen 1")
        case .cgroup1:
            return cgroupProblems(tree, file: "freezer.state", saying: "FROZEN")
        case .sigstop:
            return tree.compactMap { process in
                guard !ProcessInspector.isHalted(process.pid) else { return nil }
                let states = String(ProcessInspector.threadStates(process.pid).map(\.state))
                return "\(describe(process)) runs: thread states \(states), process group \(process.group)"
            }
        }
    }

    /// One line per process of `tree` still held after a thaw; empty when all run again.
    func stillFrozen(_ tree: [ProcessEntry]) -> [String] {
        switch backend {
        case .cgroup2:
            return read("cgroup.events").contains("frozen 1") ? ["\(cgroup ?? "?")/cgroup.events still says frozen 1"] : []
        case .cgroup1:
            let state = read("freezer.state").trimmingCharacters(in: .whitespacesAndNewlines)
            return state == "THAWED" ? [] : ["\(cgroup ?? "?")/freezer.state says \(state)"]
        case .sigstop:
            return tree.filter { ProcessInspector.isStopped($0.pid) }
                .map { "\(describe($0)) is still stopped" }
        }
    }

    /// The cgroup must say it is frozen, and every process of the tree must be in it.
    private func cgroupProblems(_ tree: [ProcessEntry], file: String, saying frozen: String) -> [String] {
        var problems: [String] = []
        let state = read(file)
        if !state.split(separator: "\n").contains(Substring(frozen)) {
            problems.append("\(cgroup ?? "?")/\(file) does not say \(frozen): \(state.debugDescription)")
        }
        let members = Set(read("cgroup.procs").split(separator: "\n").compactMap { Int32($0) })
        for process in tree where !members.contains(process.pid) && process.isAlive {
            problems.append("\(describe(process)) is not in the child's cgroup \(cgroup ?? "?")")
        }
        return problems
    }

    private func read(_ file: String) -> String {
        guard let cgroup else { return "" }
        return (try? String(contentsOfFile: cgroup + "/" + file, encoding: .utf8)) ?? ""
    }

    private func describe(_ process: ProcessEntry) -> String {
        "pid \(process.pid) (\(ProcessInspector.commandLine(process.pid)))"
    }
}
