import Glibc
import SystemPackage
@testable import SuperviseSystem

/// An in-memory kernel for the freezers: cgroup directories and their files, `/proc` rendered
/// from a process table, inotify watches and signals, each call logged. Tests set what the
/// kernel answers (a `frozen` flag, a FREEZING state, an EBUSY) and check what the freezer did.
final class FakeKernel: FreezerSystem {
    /// A call the freezer made that changed something, in order.
    enum Call: Equatable {
        case write(String, String)
        case kill(Int32, Int32)
        case makeDirectory(String)
        case removeDirectory(String)
    }

    struct Process {
        var parent: Int32
        var startTicks: UInt64 = 1_000
        /// Each thread's state (`R`, `S`, `D`, `T`, …) and the kernel function it waits in.
        var threads: [Int32: (state: Character, waitChannel: String)]
        /// What SIGSTOP does: stops every thread not in `D`, unless this is false (it was not
        /// scheduled yet, the stop is still in flight).
        var stopsOnSIGSTOP = true
        /// Whether SIGKILL is ignored (a task stuck in the kernel), so the cgroup stays busy.
        var survivesSIGKILL = false
        /// Whether `/proc/PID/status` shows a SIGKILL pending (one a cgroup v1 freeze holds back).
        var killPending = false
        var environment: [String] = []
        /// How many times it was put on a CPU (`schedstat`): a SIGCONT runs it; 0 as on a
        /// kernel that does not count.
        var timesRun: UInt64 = 1
    }

    private(set) var calls: [Call] = []
    /// Regular files by path; cgroup files that the kernel renders (`cgroup.procs`,
    /// `cgroup.events`) and `/proc` are computed instead.
    var files: [String: String] = [:]
    private(set) var directories: Set<String> = []
    /// The processes in each cgroup directory.
    var cgroupMembers: [String: [Int32]] = [:]
    /// The cgroup v2 `frozen` flag of each cgroup directory, which `cgroup.events` shows.
    private var frozenFlags: [String: Bool] = [:]
    var processes: [Int32: Process] = [:]

    /// What the next reads of a path give before it is rendered again, first first.
    var upcomingReads: [String: [Result<String, Errno>]] = [:]
    /// What the next writes to a path fail with, first first.
    var upcomingWriteFailures: [String: [Errno]] = [:]
    /// Directories whose lock another process holds.
    var lockedElsewhere: Set<String> = []
    /// Directories locked through this kernel and not released yet.
    fileprivate(set) var lockedDirectories: Set<String> = []
    /// How many times each directory was made: a lock is on the one it was taken on.
    fileprivate var generations: [String: Int] = [:]
    /// Called after each directory is made: a sweep takes it here.
    var afterMakingDirectory: (_ path: String) -> Void = { _ in }
    /// Paths whose `access` fails, with what.
    var accessFailures: [String: Errno] = [:]
    /// Paths whose opening fails, with what.
    var openFailures: [String: Errno] = [:]
    /// What the next kills of a pid fail with, first first.
    var upcomingKillFailures: [Int32: [Errno]] = [:]
    /// Called after each signal is delivered: a test's processes fork or exit here.
    var afterSignal: (_ pid: Int32, _ signal: Int32) -> Void = { _, _ in }
    /// Called after each listing of a directory, before its entries are read: a process exits here mid-scan.
    var afterListing: (_ path: String) -> Void = { _ in }
    /// Whether `/proc/PID/task/TID/children` exists (`CONFIG_PROC_CHILDREN`).
    var childrenFiles = true
    /// How many `/proc` files were read and `/proc` directories listed.
    private(set) var procReads = 0
    /// How many times each file was read, by path or through a descriptor.
    private(set) var readsByPath: [String: Int] = [:]

    /// Notifications queued on each inotify descriptor, not yet drained.
    private(set) var pendingNotifications: [Int32: Int] = [:]
    private var watches: [Int32: (inotifyFD: Int32, path: String)] = [:]
    private var openFiles: [Int32: String] = [:]
    /// The start time of the process each open `/proc` file was opened for.
    private var openProcesses: [Int32: UInt64] = [:]
    private var nextDescriptor: Int32 = 100
    /// Descriptors opened and not closed yet.
    var openDescriptors: Set<Int32> { Set(openFiles.keys) }

    // MARK: - Set-up by tests

    /// Makes a cgroup v2 directory with its files; `cgroupKill` is false for kernels before 5.14.
    func addCgroupV2(_ directory: String, cgroupKill: Bool = true) {
        directories.insert(directory)
        generations[directory, default: 0] += 1
        files[directory + "/cgroup.freeze"] = "0\n"
        if cgroupKill { files[directory + "/cgroup.kill"] = "" }
    }

    /// Makes a cgroup v1 freezer directory, THAWED.
    func addCgroupV1(_ directory: String) {
        directories.insert(directory)
        generations[directory, default: 0] += 1
        files[directory + "/freezer.state"] = "THAWED\n"
    }

    /// Adds a single-threaded process in state `state`, in `cgroup` if given.
    func addProcess(_ pid: Int32, parent: Int32 = 1, state: Character = "S", in cgroup: String? = nil) {
        processes[pid] = Process(parent: parent, threads: [pid: (state, "0")])
        if let cgroup { cgroupMembers[cgroup, default: []].append(pid) }
    }

    /// Sets the v2 `frozen` flag of `directory`, as the kernel does once every task is frozen
    /// (or one joins); `notify` false when the kernel's ~10 ms rate limit holds the notification back.
    func setFrozen(_ directory: String, _ frozen: Bool, notify: Bool = true) {
        frozenFlags[directory] = frozen
        guard notify else { return }
        for (_, watch) in watches where watch.path == directory + "/cgroup.events" {
            pendingNotifications[watch.inotifyFD, default: 0] += 1
        }
    }

    /// The signals sent, in order.
    var signals: [(pid: Int32, signal: Int32)] {
        calls.compactMap { if case .kill(let pid, let signal) = $0 { (pid, signal) } else { nil } }
    }

    /// The texts written to `path`, in order.
    func writes(to path: String) -> [String] {
        calls.compactMap { if case .write(path, let text) = $0 { text } else { nil } }
    }

    // MARK: - FreezerSystem

    func readFile(_ path: String) -> Result<String, Errno> {
        if path.hasPrefix("/proc/") { procReads += 1 }
        readsByPath[path, default: 0] += 1
        if var queued = upcomingReads[path], !queued.isEmpty {
            let next = queued.removeFirst()
            upcomingReads[path] = queued
            return next
        }
        return render(path)
    }

    func write(_ text: String, toFile path: String) -> Result<Void, Errno> {
        if var queued = upcomingWriteFailures[path], !queued.isEmpty {
            let error = queued.removeFirst()
            upcomingWriteFailures[path] = queued
            calls.append(.write(path, text))
            return .failure(error)
        }
        let (directory, name) = split(path)
        guard files[path] != nil || (name == "cgroup.procs" && directories.contains(directory)) else {
            return .failure(.noSuchFileOrDirectory)
        }
        calls.append(.write(path, text))
        switch name {
        case "cgroup.procs":
            guard let pid = Int32(text), processes[pid] != nil else { return .failure(.noSuchProcess) }
            for cgroup in cgroupMembers.keys { cgroupMembers[cgroup]?.removeAll { $0 == pid } }
            cgroupMembers[directory, default: []].append(pid)
        case "cgroup.kill":
            for cgroup in directories where cgroup == directory || cgroup.hasPrefix(directory + "/") {
                for pid in cgroupMembers[cgroup] ?? [] { deliver(SIGKILL, to: pid) }
            }
        case "cgroup.freeze":
            files[path] = text + "\n"
            // Thawing clears `frozen` at once; freezing sets it only once every task is frozen.
            if text == "0" { frozenFlags[directory] = false }
        default:
            files[path] = text + "\n"
        }
        return .success(())
    }

    /// A directory made in a cgroup is a cgroup of the same hierarchy, with its files.
    func makeDirectory(_ path: String) -> Result<Void, Errno> {
        calls.append(.makeDirectory(path))
        guard !directories.contains(path) else { return .failure(.fileExists) }
        let parent = split(path).directory
        guard directories.contains(parent) else { return .failure(.noSuchFileOrDirectory) }
        if files[parent + "/cgroup.freeze"] != nil {
            addCgroupV2(path, cgroupKill: files[parent + "/cgroup.kill"] != nil)
        } else if files[parent + "/freezer.state"] != nil {
            addCgroupV1(path)
        } else {
            directories.insert(path)
            generations[path, default: 0] += 1
        }
        afterMakingDirectory(path)
        return .success(())
    }

    /// As for a cgroup: EBUSY while it holds a process or a child cgroup.
    func removeDirectory(_ path: String) -> Result<Void, Errno> {
        calls.append(.removeDirectory(path))
        guard directories.contains(path) else { return .failure(.noSuchFileOrDirectory) }
        let busy = !(cgroupMembers[path] ?? []).isEmpty || directories.contains { $0.hasPrefix(path + "/") }
        guard !busy else { return .failure(.resourceBusy) }
        directories.remove(path)
        files = files.filter { !$0.key.hasPrefix(path + "/") }
        return .success(())
    }

    func subdirectories(of path: String) -> Result<[String], Errno> {
        defer { afterListing(path) }
        if path.hasPrefix("/proc") { procReads += 1 }
        if path == "/proc" { return .success(processes.keys.sorted().map(String.init) + ["self", "sys"]) }
        if path.hasPrefix("/proc/") {
            let fields = path.split(separator: "/")
            guard fields.count == 3, fields[2] == "task", let pid = Int32(fields[1]), let process = processes[pid]
            else { return .failure(.noSuchFileOrDirectory) }
            return .success(process.threads.keys.sorted().map(String.init))
        }
        guard directories.contains(path) else { return .failure(.noSuchFileOrDirectory) }
        return .success(directories.filter { split($0).directory == path }.map { split($0).name }.sorted())
    }

    func access(_ path: String, _ mode: Int32) -> Result<Void, Errno> {
        if let error = accessFailures[path] { return .failure(error) }
        return directories.contains(path) || render(path).isSuccess ? .success(()) : .failure(.noSuchFileOrDirectory)
    }

    func open(_ path: String, _ flags: Int32) -> Result<Int32, Errno> {
        if let error = openFailures[path] { return .failure(error) }
        let isDirectory = path.hasSuffix("/.") && directories.contains(String(path.dropLast(2)))
            || procPID(path).map { path == "/proc/\($0)" && processes[$0] != nil } == true
        guard isDirectory || access(path, F_OK).isSuccess else { return .failure(.noSuchFileOrDirectory) }
        nextDescriptor += 1
        openFiles[nextDescriptor] = path
        if let pid = procPID(path) { openProcesses[nextDescriptor] = processes[pid]?.startTicks }
        return .success(nextDescriptor)
    }

    /// The pid of a `/proc/PID/…` path.
    private func procPID(_ path: String) -> Int32? {
        guard path.hasPrefix("/proc/") else { return nil }
        return Int32(path.split(separator: "/")[1])
    }

    func open(_ name: String, in directoryFD: Int32, _ flags: Int32) -> Result<Int32, Errno> {
        guard let directory = openFiles[directoryFD] else { return .failure(.badFileDescriptor) }
        return open((directory.hasSuffix("/.") ? String(directory.dropLast(2)) : directory) + "/" + name, flags)
    }

    /// As the kernel's: a file whose cgroup was removed answers ENODEV; a `/proc` file names the
    /// process it was opened for, and once that one is gone, even if its pid names another, a
    /// read fails with ESRCH (`children` reads empty).
    func readAll(_ fd: Int32) -> Result<String, Errno> {
        guard let path = openFiles[fd] else { return .failure(.badFileDescriptor) }
        if let pid = procPID(path) {
            guard processes[pid]?.startTicks == openProcesses[fd] else {
                return path.hasSuffix("/children") ? .success("") : .failure(.noSuchProcess)
            }
            return readFile(path)
        }
        guard directories.contains(split(path).directory) else { return .failure(Errno(rawValue: ENODEV)) }
        return readFile(path)
    }

    func write(_ text: String, to fd: Int32) -> Result<Void, Errno> {
        guard let path = openFiles[fd] else { return .failure(.badFileDescriptor) }
        guard directories.contains(split(path).directory) else { return .failure(Errno(rawValue: ENODEV)) }
        return write(text, toFile: path)
    }

    func close(_ fd: Int32) {
        openFiles[fd] = nil
        openProcesses[fd] = nil
    }

    func lockDirectory(_ directory: String) -> Result<(any DirectoryLock)?, Errno> {
        guard directories.contains(directory) else { return .failure(.noSuchFileOrDirectory) }
        guard !lockedElsewhere.contains(directory), lockedDirectories.insert(directory).inserted else { return .success(nil) }
        return .success(FakeLock(kernel: self, directory: directory, generation: generations[directory] ?? 0))
    }

    func makeInotify() -> Result<Int32, Errno> {
        nextDescriptor += 1
        openFiles[nextDescriptor] = "anon_inode:inotify"
        return .success(nextDescriptor)
    }

    func watchModifications(of path: String, on inotifyFD: Int32) -> Result<Int32, Errno> {
        guard render(path).isSuccess else { return .failure(.noSuchFileOrDirectory) }
        let watch = Int32(watches.count + 1)
        watches[watch] = (inotifyFD, path)
        return .success(watch)
    }

    func removeWatch(_ watch: Int32, from inotifyFD: Int32) {
        watches[watch] = nil
    }

    func drain(_ fd: Int32) {
        pendingNotifications[fd] = 0
    }

    func kill(_ pid: Int32, _ signal: Int32) -> Result<Void, Errno> {
        calls.append(.kill(pid, signal))
        if var queued = upcomingKillFailures[pid], !queued.isEmpty {
            let error = queued.removeFirst()
            upcomingKillFailures[pid] = queued
            return .failure(error)
        }
        guard processes[pid] != nil else { return .failure(.noSuchProcess) }
        deliver(signal, to: pid)
        afterSignal(pid, signal)
        return .success(())
    }

    /// As `kill` to the process the directory was opened for; ESRCH once it is gone.
    func signal(processDirectory fd: Int32, _ signal: Int32) -> Result<Void, Errno> {
        guard let path = openFiles[fd], let pid = procPID(path) else { return .failure(.badFileDescriptor) }
        guard processes[pid]?.startTicks == openProcesses[fd] else { return .failure(.noSuchProcess) }
        return kill(pid, signal)
    }

    // MARK: - The kernel's side

    private func deliver(_ signal: Int32, to pid: Int32) {
        guard var process = processes[pid] else { return }
        switch signal {
        case SIGKILL where !process.survivesSIGKILL:
            processes[pid] = nil
            for cgroup in cgroupMembers.keys { cgroupMembers[cgroup]?.removeAll { $0 == pid } }
            return
        case SIGSTOP where process.stopsOnSIGSTOP:
            for (tid, thread) in process.threads where thread.state != "D" { process.threads[tid]?.state = "T" }
        case SIGCONT:
            for (tid, thread) in process.threads where thread.state == "T" { process.threads[tid]?.state = "S" }
            process.timesRun += 1
        default:
            break
        }
        processes[pid] = process
    }

    private func render(_ path: String) -> Result<String, Errno> {
        if path.hasPrefix("/proc/") { return renderProc(path) }
        let (directory, name) = split(path)
        guard directories.contains(directory) else { return .failure(.noSuchFileOrDirectory) }
        switch name {
        case "cgroup.procs":
            return .success((cgroupMembers[directory] ?? []).map { "\($0)\n" }.joined())
        case "cgroup.events" where files[directory + "/cgroup.freeze"] != nil:
            let populated = directories.contains { cgroup in
                (cgroup == directory || cgroup.hasPrefix(directory + "/")) && !(cgroupMembers[cgroup] ?? []).isEmpty
            }
            return .success("populated \(populated ? 1 : 0)\nfrozen \(frozenFlags[directory] == true ? 1 : 0)\n")
        default:
            return files[path].map { .success($0) } ?? .failure(.noSuchFileOrDirectory)
        }
    }

    /// `/proc/PID/{stat,status,environ,schedstat}` and `/proc/PID/task/TID/{stat,wchan,schedstat,children}`.
    private func renderProc(_ path: String) -> Result<String, Errno> {
        let fields = path.split(separator: "/").map(String.init)
        guard fields.count >= 3, let pid = Int32(fields[1]), let process = processes[pid] else {
            return .failure(.noSuchFileOrDirectory)
        }
        switch Array(fields.dropFirst(2)) {
        case ["stat"]:
            return .success(statLine(pid, process, state: process.threads[pid]?.state ?? "S"))
        case ["status"]:
            return .success("Name:\tfake\nSigPnd:\t0000000000000000\nShdPnd:\t\(process.killPending ? "0000000000000100" : "0000000000000000")\n")
        case ["environ"]:
            return .success(process.environment.map { $0 + "\0" }.joined())
        case ["schedstat"]:
            return .success("1000 0 \(process.timesRun)\n")
        case let task where task.count == 3 && task[0] == "task":
            guard let tid = Int32(task[1]), let thread = process.threads[tid] else { return .failure(.noSuchFileOrDirectory) }
            if task[2] == "wchan" { return .success(thread.waitChannel) }
            if task[2] == "schedstat" { return .success("1000 0 \(process.timesRun)\n") }
            if task[2] == "children", childrenFiles {
                // One thread's children: the fake's processes are all children of their main thread.
                return .success(tid != pid ? "" : processes.filter { $0.value.parent == pid }.keys.sorted().map { "\($0) " }.joined())
            }
            return task[2] == "stat" ? .success(statLine(tid, process, state: thread.state)) : .failure(.noSuchFileOrDirectory)
        default:
            return .failure(.noSuchFileOrDirectory)
        }
    }

    /// A `/proc/PID/stat` line with the fields ``ProcFS/parseStat(_:)`` reads (a name with a space and a
    /// parenthesis): 7 + 3 ticks of CPU time, 250 pages resident, and a field after them as the kernel has.
    private func statLine(_ pid: Int32, _ process: Process, state: Character) -> String {
        let afterName = [String(state), String(process.parent)] + Array(repeating: "0", count: 9)
            + ["7", "3", "0", "0", "0", "0", String(process.threads.count), "0", String(process.startTicks), "0", "250"]
            + ["18446744073709551615"]
        return "\(pid) (fake (worker)) " + afterName.joined(separator: " ") + "\n"
    }

    private func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }
}

/// A lock taken through a ``FakeKernel``: on the directory it was taken on while that is not removed or made anew.
final class FakeLock: DirectoryLock {
    private let kernel: FakeKernel
    private let directory: String
    private let generation: Int
    private var held = true

    fileprivate init(kernel: FakeKernel, directory: String, generation: Int) {
        (self.kernel, self.directory, self.generation) = (kernel, directory, generation)
    }

    func isOn(_ directory: String) -> Bool {
        directory == self.directory && kernel.directories.contains(directory) && kernel.generations[directory] == generation
    }

    func release() {
        guard held else { return }
        held = false
        kernel.lockedDirectories.remove(directory)
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { true } else { false }
    }
}
