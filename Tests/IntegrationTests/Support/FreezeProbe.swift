import Foundation

/// Asks the kernel, not supervise, whether each process of a tree is frozen: through the
/// child's cgroup for the cgroup backends, through every thread's state for SIGSTOP.
struct FreezeProbe {
    var backend: Backend
    /// The child's cgroup directory, from its `status` line (nil with sigstop).
    var cgroup: String?

    /// One line per process of `tree` that is not frozen, saying why; empty when all are.
    func unfrozen(_ tree: [ProcEntry]) -> [String] {
        switch backend {
        case .cgroup2:
            return cgroupProblems(tree, file: "cgroup.events", saying: "frozen 1")
        case .cgroup1:
            return cgroupProblems(tree, file: "freezer.state", saying: "FROZEN")
        case .sigstop:
            return tree.compactMap { process in
                let states = ProcTable.threadStates(process.pid)
                guard !states.allSatisfy({ "Tt".contains($0) || $0 == "D" && parkedInVfork(process.pid) }) else { return nil }
                return "\(describe(process)) runs: thread states \(String(states)), process group \(process.group)"
            }
        }
    }

    /// One line per process of `tree` still held after a thaw; empty when all run again.
    func stillFrozen(_ tree: [ProcEntry]) -> [String] {
        switch backend {
        case .cgroup2:
            return read("cgroup.events").contains("frozen 1") ? ["\(cgroup ?? "?")/cgroup.events still says frozen 1"] : []
        case .cgroup1:
            let state = read("freezer.state").trimmingCharacters(in: .whitespacesAndNewlines)
            return state == "THAWED" ? [] : ["\(cgroup ?? "?")/freezer.state says \(state)"]
        case .sigstop:
            return tree.filter { ProcTable.threadStates($0.pid).contains { "Tt".contains($0) } }
                .map { "\(describe($0)) is still stopped" }
        }
    }

    /// The cgroup must say it is frozen, and every process of the tree must be in it.
    private func cgroupProblems(_ tree: [ProcEntry], file: String, saying frozen: String) -> [String] {
        var problems: [String] = []
        let state = read(file)
        if !state.split(separator: "\n").contains(Substring(frozen)) {
            problems.append("\(cgroup ?? "?")/\(file) does not say \(frozen): \(state.debugDescription)")
        }
        let members = Set(read("cgroup.procs").split(separator: "\n").compactMap { Int32($0) })
        for process in tree where !members.contains(process.pid) && ProcTable.isAlive(process) {
            problems.append("\(describe(process)) is not in the child's cgroup \(cgroup ?? "?")")
        }
        return problems
    }

    private func read(_ file: String) -> String {
        guard let cgroup else { return "" }
        return (try? String(contentsOfFile: cgroup + "/" + file, encoding: .utf8)) ?? ""
    }

    /// Whether `pid` waits in `vfork` for a child stopped before its exec (dash runs commands
    /// with vfork): it can't run until that child is continued, as the supervisor also counts it.
    private func parkedInVfork(_ pid: Int32) -> Bool {
        ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]
            .contains((try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "")
    }

    private func describe(_ process: ProcEntry) -> String {
        "pid \(process.pid) (\(ProcTable.commandLine(process.pid)))"
    }
}
