import Glibc
import SystemPackage

/// The `/proc` files of one process that the sigstop freezer reads at every freeze and thaw.
enum ProcessFile: CaseIterable {
    /// `/proc/PID` itself, which signals go through.
    case directory
    case stat
    case schedstat
    /// The children of its main thread.
    case children

    func path(_ pid: Int32) -> String {
        switch self {
        case .directory: "/proc/\(pid)"
        case .stat: "/proc/\(pid)/stat"
        case .schedstat: "/proc/\(pid)/schedstat"
        case .children: "/proc/\(pid)/task/\(pid)/children"
        }
    }
}

/// Descriptors held open on the ``ProcessFile``s of the few processes read at every decision
/// (each child's main process, the supervisor itself): a read is then one `pread`, not an open,
/// a read and a close, and a signal one `pidfd_send_signal`, not a read of its stat and a `kill`.
///
/// A descriptor names the process, not its pid: once the process is reaped its `stat` fails
/// with ESRCH, and its files are closed and read by path again (where the pid may name another
/// process, which the caller's identity check tells). So while a held read succeeds, the pid
/// still names the process held, and a signal sent through its directory can reach no other.
///
/// At most one descriptor in eight of the open-files limit is held: a supervisor of thousands of
/// children reads the rest by path rather than run out of descriptors for its pipes.
final class HeldProcessFiles {
    private let system: any FreezerSystem
    /// The descriptors of each process held, by pid, with the identity it was held as.
    private var held: [Int32: (process: ProcessIdentity, fds: [ProcessFile: Int32])] = [:]
    /// How many processes may be held, by the limit now (the supervisor raises it once started).
    private var capacity: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur / 8) / ProcessFile.allCases.count
    }

    init(_ system: any FreezerSystem) {
        self.system = system
    }

    /// Opens `pid`'s files and reads its stat through them: the identity the files name, or
    /// `nil` when `pid` can't be held (gone, at capacity, or a `/proc` that refuses), and is read
    /// by path. With `parent`, only a child of it is held: in a `/proc` of another pid namespace
    /// (not mounted again after `unshare --pid`) the same number names another process, and a
    /// signal through its directory would reach that one, where `kill` reaches the right one.
    func hold(_ pid: Int32, childOf parent: Int32?) -> (ProcessIdentity, ProcessStat)? {
        // Files still held for a process reaped since, whose pid is reused, are closed by a read.
        if held[pid] != nil { _ = read(.stat, of: pid) }
        guard held[pid] == nil, held.count < capacity else { return nil }
        var fds: [ProcessFile: Int32] = [:]
        for file in ProcessFile.allCases {
            let flags = O_RDONLY | O_CLOEXEC | (file == .directory ? O_DIRECTORY : 0)
            guard case .success(let fd) = system.open(file.path(pid), flags) else {
                fds.values.forEach(system.close)
                return nil
            }
            fds[file] = fd
        }
        guard let stat = fds[.stat].flatMap({ try? system.readAll($0).get() }).flatMap(ProcFS.parseStat),
              parent.map({ stat.parent == $0 }) ?? true else {
            fds.values.forEach(system.close)
            return nil
        }
        let process = ProcessIdentity(pid: pid, startTicks: stat.startTicks)
        held[pid] = (process, fds)
        return (process, stat)
    }

    /// The descriptors held for `process`; `nil` when its pid is not held, or held for another.
    private func descriptors(of process: ProcessIdentity) -> [ProcessFile: Int32]? {
        held[process.pid].flatMap { $0.process == process ? $0.fds : nil }
    }

    /// Closes the files held for `process`; none when its pid is held for another process.
    func release(_ process: ProcessIdentity) {
        if descriptors(of: process) != nil { close(process.pid) }
    }

    /// `file` of `process` read through its held descriptor; `nil` when it is not held (its pid
    /// may be held for another process) or is gone.
    func read(_ file: ProcessFile, of process: ProcessIdentity) -> String? {
        descriptors(of: process) != nil ? read(file, of: process.pid) : nil
    }

    /// `file` of `pid` read through its held descriptor; `nil` when `pid` is not held, or no
    /// longer names the process held (its files are closed then), and must be read by path.
    func read(_ file: ProcessFile, of pid: Int32) -> String? {
        guard let fd = held[pid]?.fds[file] else { return nil }
        switch system.readAll(fd) {
        case .success(let text):
            // A reaped process's `children` reads empty rather than failing: so it has none.
            return text
        case .failure(.noSuchProcess):
            close(pid)
            return nil
        case .failure:
            return nil
        }
    }

    /// Sends `signal` to `process` through its held directory; `nil` when it is not held or
    /// the kernel can't (before Linux 5.1, or a seccomp filter refuses), and `kill` must.
    func signal(_ process: ProcessIdentity, _ signal: Int32) -> Result<Void, Errno>? {
        guard let fd = descriptors(of: process)?[.directory] else { return nil }
        switch system.signal(processDirectory: fd, signal) {
        case .success:
            return .success(())
        case .failure(.noSuchProcess):
            close(process.pid)
            return .failure(.noSuchProcess)
        case .failure:
            return nil
        }
    }

    private func close(_ pid: Int32) {
        held.removeValue(forKey: pid)?.fds.values.forEach(system.close)
    }
}
