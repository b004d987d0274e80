import Glibc
import SystemPackage

/// The fields of `/proc/PID/stat` the freezers use.
struct ProcessStat: Equatable {
    /// `R`, `S`, `D`, `T` (stopped), `t` (tracing stop), `Z`, …
    var state: Character
    var parent: Int32
    /// CPU time in user and kernel mode, in clock ticks.
    var userTicks: UInt64
    var systemTicks: UInt64
    /// CPU time of the children it has reaped, in clock ticks.
    var reapedChildrenTicks: UInt64
    /// When the process started, in clock ticks since boot.
    var startTicks: UInt64
    /// How many threads it has (in a thread's own stat, its process's).
    var threads: Int = 1
    /// Its resident set, in pages: the figure `/proc/PID/statm` gives as resident.
    var residentPages: Int = 0

    /// Whether the task can't run: stopped, traced-stopped, or dead.
    var isHalted: Bool { "TtZX".contains(state) }

    /// Whether the task has exited (a zombie waiting to be reaped, or dead).
    var isDead: Bool { "ZX".contains(state) }
}

/// Readers of `/proc`, through a ``FreezerSystem``, and parsers of its files.
struct ProcFS {
    let system: any FreezerSystem
    /// The processes whose files are read through descriptors held open (``hold(_:)``).
    private let held: HeldProcessFiles

    init(_ system: any FreezerSystem = LinuxFreezerSystem()) {
        self.system = system
        held = HeldProcessFiles(system)
    }

    /// Holds `pid`'s directory, `stat`, `schedstat` and `children` open, for a process read and
    /// signalled at every decision, if a child of `parent` (when given): its identity and stat,
    /// read through them, or `nil` when it is read by path (``HeldProcessFiles/hold(_:childOf:)``).
    func hold(_ pid: Int32, childOf parent: Int32?) -> (ProcessIdentity, ProcessStat)? {
        held.hold(pid, childOf: parent)
    }

    /// Closes the files ``hold(_:)`` opened for `process`.
    func release(_ process: ProcessIdentity) {
        held.release(process)
    }

    /// `file` of `pid`, through its held descriptor when there is one, else by path.
    private func read(_ file: ProcessFile, of pid: Int32) -> String? {
        held.read(file, of: pid) ?? (try? system.readFile(file.path(pid)).get())
    }

    /// Clock ticks per second, the unit of `/proc/PID/stat` times.
    static let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// Parses one `/proc/PID/stat` line. The command name may hold spaces and
    /// parentheses, so the fields are read after the last `)`, in place (``KernelFields``).
    static func parseStat(_ text: String) -> ProcessStat? {
        KernelFields.reading(text) { bytes in
            guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
            // proc(5)'s fields from the third, the state, on: the 4th is the parent, the 14th and
            // 15th user and system time, the 16th and 17th the reaped children's, the 20th the
            // threads, the 22nd the start, the 24th the resident set.
            var fields = KernelFields(bytes, from: close + 1)
            guard let state = fields.next()?.first,
                  let parent = fields.nextDecimal().flatMap(Int32.init(exactly:)), fields.skip(9),
                  let user = fields.nextDecimal(), let system = fields.nextDecimal(),
                  let childUser = fields.nextDecimal(), let childSystem = fields.nextDecimal(), fields.skip(2),
                  let threads = fields.nextDecimal().flatMap(Int.init(exactly:)), fields.skip(1),
                  let start = fields.nextDecimal(), fields.skip(1),
                  let resident = fields.nextDecimal().flatMap(Int.init(exactly:))
            else { return nil }
            return ProcessStat(state: Character(Unicode.Scalar(state)), parent: parent,
                               userTicks: user, systemTicks: system, reapedChildrenTicks: childUser + childSystem,
                               startTicks: start, threads: threads, residentPages: resident)
        }
    }

    /// The size of a memory page, in bytes.
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    func stat(_ pid: Int32) -> ProcessStat? {
        read(.stat, of: pid).flatMap(Self.parseStat)
    }

    /// The stat of `process`, unless it is gone and its pid unused or reused.
    func stat(_ process: ProcessIdentity) -> ProcessStat? {
        stat(process.pid).flatMap { $0.startTicks == process.startTicks ? $0 : nil }
    }

    /// Sends `signal` to `process` unless its pid now names another process; the error of a
    /// failure, where a process already gone is not one.
    @discardableResult
    func signal(_ process: ProcessIdentity, _ signal: Int32) -> Errno? {
        let sent = held.signal(process, signal) ?? (stat(process) == nil ? .success(()) : system.kill(process.pid, signal))
        guard case .failure(let error) = sent, error != .noSuchProcess else { return nil }
        return error
    }

    /// The `SUPERVISE_NAME` that `pid` was started with (`/proc/PID/environ`), which a
    /// supervisor gives each child and descendants inherit unless they clear it.
    func supervisedName(_ pid: Int32) -> String? {
        guard let environment = try? system.readFile("/proc/\(pid)/environ").get() else { return nil }
        let prefix = "SUPERVISE_NAME="
        return environment.split(separator: "\0").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Whether `pid` has a SIGKILL pending: sent, and not yet acted on (a task a cgroup v1
    /// freeze holds acts on it only once thawed).
    func hasKillPending(_ pid: Int32) -> Bool {
        (try? system.readFile("/proc/\(pid)/status").get()).map(Self.killPending(status:)) ?? false
    }

    /// Whether a `/proc/PID/status` text shows SIGKILL (9, mask 0x100) pending, for the thread
    /// (`SigPnd`) or the whole process (`ShdPnd`).
    static func killPending(status: String) -> Bool {
        status.split(separator: "\n").contains { line in
            guard line.hasPrefix("SigPnd:") || line.hasPrefix("ShdPnd:"),
                  let mask = UInt64(line.dropFirst(7).drop { $0 == "\t" || $0 == " " }, radix: 16) else { return false }
            return mask & (1 << (SIGKILL - 1)) != 0
        }
    }

    /// The states of every thread of `pid`.
    func threadStats(_ pid: Int32) -> [ProcessStat] {
        threadIDs(pid).compactMap { threadStat(pid, thread: $0) }
    }

    /// The thread ids of `pid` (`/proc/PID/task`), none when it is gone.
    func threadIDs(_ pid: Int32) -> [String] {
        system.subdirectoriesOrNone(of: "/proc/\(pid)/task")
    }

    /// The stat of thread `tid` of `pid` (`/proc/PID/task/TID/stat`), or `nil` when it is gone.
    func threadStat(_ pid: Int32, thread tid: String) -> ProcessStat? {
        (try? system.readFile("/proc/\(pid)/task/\(tid)/stat").get()).flatMap(Self.parseStat)
    }

    /// The kernel function thread `tid` of `pid` sleeps in (`/proc/PID/task/TID/wchan`), or `nil`.
    func waitChannel(_ pid: Int32, thread tid: String) -> String? {
        try? system.readFile("/proc/\(pid)/task/\(tid)/wchan").get()
    }

    /// How many times the kernel has put a thread of `pid` on a CPU: the sum of the third field
    /// of each `/proc/PID/task/TID/schedstat` of `threads` (`nil`: its only thread's,
    /// `/proc/PID/schedstat`); `nil` when one can't be read.
    func timesRun(_ pid: Int32, threads: [String]?) -> UInt64? {
        var total: UInt64 = 0
        let texts = threads?.map { try? system.readFile("/proc/\(pid)/task/\($0)/schedstat").get() }
        for text in texts ?? [read(.schedstat, of: pid)] {
            guard let count = text.flatMap(Self.parseTimesRun) else { return nil }
            total &+= count
        }
        return total
    }

    /// How many times the kernel has put the main thread of `process` on a CPU, read through its
    /// held `schedstat` only: a count of that process, never of a later one with its pid; `nil`
    /// when it is not held or is gone.
    func heldTimesRun(_ process: ProcessIdentity) -> UInt64? {
        held.read(.schedstat, of: process).flatMap(Self.parseTimesRun)
    }

    /// The third field of a `schedstat` line: how many times the thread was put on a CPU.
    static func parseTimesRun(_ text: String) -> UInt64? {
        KernelFields.reading(text) { bytes in
            var fields = KernelFields(bytes)
            return fields.skip(2) ? fields.nextDecimal() : nil
        }
    }

    /// The pids of the children of thread `tid` of `pid` (`/proc/PID/task/TID/children`); `nil`
    /// when the file can't be read: the thread is gone, or the kernel lacks `CONFIG_PROC_CHILDREN`.
    func children(_ pid: Int32, thread tid: String) -> [Int32]? {
        let text = tid == String(pid) ? read(.children, of: pid) : try? system.readFile("/proc/\(pid)/task/\(tid)/children").get()
        return text.map { text in
            KernelFields.reading(text) { bytes in
                var fields = KernelFields(bytes)
                var pids: [Int32] = []
                while let field = fields.next() {
                    if let pid = KernelFields.decimal(field).flatMap(Int32.init(exactly:)) { pids.append(pid) }
                }
                return pids
            }
        }
    }

    /// Every process id now in `/proc`.
    func allPIDs() -> [Int32] {
        system.subdirectoriesOrNone(of: "/proc").compactMap { name in
            name.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ? Int32(name) : nil
        }
    }

    /// CPU time (with that of reaped children) and resident memory summed over `pids`, each
    /// read from its `stat` alone.
    func usage(of pids: [Int32]) -> ResourceUsage {
        Self.usage(of: pids.compactMap(stat))
    }

    /// CPU time (with that of reaped children) and resident memory summed over `stats`.
    static func usage(of stats: some Sequence<ProcessStat>) -> ResourceUsage {
        var ticks: UInt64 = 0
        var pages = 0
        for stat in stats {
            ticks += stat.userTicks + stat.systemTicks + stat.reapedChildrenTicks
            pages += stat.residentPages
        }
        return ResourceUsage(rssKB: pages * pageSize / 1024, cpuMS: Double(ticks) * 1000 / Double(ticksPerSecond))
    }
}
