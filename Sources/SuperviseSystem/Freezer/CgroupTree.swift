import Glibc
import SystemPackage

/// Operations on a cgroup directory and every cgroup below it (a child may make its own sub-cgroups).
struct CgroupTree {
    let system: any FreezerSystem

    init(_ system: any FreezerSystem = LinuxFreezerSystem()) {
        self.system = system
    }

    /// `directory` and its descendants, parents before children.
    func directories(_ directory: String) -> [String] {
        [directory] + system.subdirectoriesOrNone(of: directory).flatMap { directories(directory + "/" + $0) }
    }

    /// The processes in `directory` and below.
    func pids(_ directory: String) -> [Int32] {
        directories(directory).flatMap { cgroup in
            ((try? system.readFile(cgroup + "/cgroup.procs").get()) ?? "")
                .split(separator: "\n").compactMap { Int32($0) }
        }
    }

    /// Sends `signal` (SIGKILL unless told) to every process in `directory` and below; returns how many.
    @discardableResult
    func signalEvery(_ directory: String, _ signal: Int32 = SIGKILL) -> Int {
        let pids = pids(directory)
        for pid in pids { _ = system.kill(pid, signal) }
        return pids.count
    }

    /// Sends `signal` once to every process in `directory` and below, looking again until no
    /// new process turns up: one may fork while the list is read.
    func signalTree(_ directory: String, _ signal: Int32) {
        var signalled: Set<Int32> = []
        while true {
            let fresh = pids(directory).filter { !signalled.contains($0) }
            guard !fresh.isEmpty else { return }
            for pid in fresh { _ = system.kill(pid, signal) }
            signalled.formUnion(fresh)
        }
    }

    /// Removes `directory` and every cgroup below it, children first. A missing directory counts as removed.
    func remove(_ directory: String) -> Result<Void, Errno> {
        for child in system.subdirectoriesOrNone(of: directory) {
            if case .failure(let error) = remove(directory + "/" + child) { return .failure(error) }
        }
        switch system.removeDirectory(directory) {
        case .success, .failure(.noSuchFileOrDirectory): return .success(())
        case .failure(let error): return .failure(error)
        }
    }
}
