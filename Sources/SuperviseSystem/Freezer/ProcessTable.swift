/// A process told apart from a later one that reuses its pid: its pid and its start time
/// (`/proc/PID/stat` field 22, in clock ticks since boot).
struct ProcessIdentity: Hashable {
    var pid: Int32
    var startTicks: UInt64
}

/// The live processes of one scan of `/proc` (zombies left out) and their parent links.
struct ProcessTable {
    private var parents: [ProcessIdentity: Int32] = [:]
    private var byPID: [Int32: ProcessIdentity] = [:]
    private var children: [Int32: [ProcessIdentity]] = [:]

    /// A table of `processes`, each with the pid of its parent.
    init(_ processes: [(ProcessIdentity, parent: Int32)]) {
        for (process, parent) in processes {
            parents[process] = parent
            byPID[process.pid] = process
            children[parent, default: []].append(process)
        }
    }

    /// Reads `/proc/PID/stat` of every process now running (milliseconds on a busy machine); a
    /// process that exits meanwhile is left out.
    static func scan(_ procFS: ProcFS) -> ProcessTable {
        ProcessTable(procFS.allPIDs().compactMap { pid in
            guard let stat = procFS.stat(pid), !stat.isDead else { return nil }
            return (ProcessIdentity(pid: pid, startTicks: stat.startTicks), parent: stat.parent)
        })
    }

    /// Whether `process` was alive at the scan (a reused pid is another process).
    func contains(_ process: ProcessIdentity) -> Bool {
        parents[process] != nil
    }

    /// The live children of `pid`.
    func children(of pid: Int32) -> [ProcessIdentity] {
        children[pid] ?? []
    }

    /// The `roots` that are alive and every live descendant of them, by parent links.
    func trees(from roots: some Sequence<ProcessIdentity>) -> Set<ProcessIdentity> {
        var found: Set<ProcessIdentity> = []
        var pending = roots.filter(contains)
        while let process = pending.popLast() {
            guard found.insert(process).inserted else { continue }
            pending += children(of: process.pid)
        }
        return found
    }
}
