import Foundation

/// Every process a test saw in a server's tree: afterwards the test can tell which are left, and
/// kill exactly those whatever happened (never another process that reuses a pid).
final class SeenProcesses {
    private var seen: [Int32: ProcessEntry] = [:]

    func add(_ tree: [ProcessEntry]) {
        for process in tree where seen[process.pid] == nil { seen[process.pid] = process }
    }

    /// The seen processes still running, each as `pid (command line)`.
    var alive: [String] {
        seen.values.filter(\.isAlive).sorted { $0.pid < $1.pid }
            .map { "\($0.pid) (\(ProcessInspector.commandLine($0.pid)))" }
    }

    /// Thaws the child's cgroup if it is still there (a task frozen by cgroup v1 can't die),
    /// then SIGKILLs and continues every seen process still alive.
    func killSurvivors(cgroup: String?) {
        if let cgroup {
            try? "0".write(toFile: cgroup + "/cgroup.freeze", atomically: false, encoding: .utf8)
            try? "THAWED".write(toFile: cgroup + "/freezer.state", atomically: false, encoding: .utf8)
        }
        for process in seen.values where process.isAlive {
            kill(process.pid, SIGKILL)
            kill(process.pid, SIGCONT)
        }
    }
}
