import SuperviseLifecycle
import SuperviseSystemCall
import _SuperviseCShims
import Glibc
import SystemPackage

/// The file and process operations the freezers make, and nothing else: cgroup and `/proc`
/// files read and written, cgroup directories made, locked and removed, `cgroup.events`
/// watched, signals sent. Calls whose failure no caller acts on (`close`, a watch removed, a
/// drain) return nothing; every other one returns its `Errno`. The freezers take one at init, ``LinuxFreezerSystem`` unless a test gives
/// them a fake, so their handling of what the kernel answers is tested without root.
protocol FreezerSystem {
    /// The whole file at `path` (cgroup and `/proc` files are small).
    func readFile(_ path: String) -> Result<String, Errno>
    /// Writes `text` to the file at `path` in one call, as cgroup files require.
    func write(_ text: String, toFile path: String) -> Result<Void, Errno>
    func makeDirectory(_ path: String) -> Result<Void, Errno>
    func removeDirectory(_ path: String) -> Result<Void, Errno>
    /// The names of the subdirectories of `path` (child cgroups, `/proc` pids, `/proc/PID/task` threads).
    func subdirectories(of path: String) -> Result<[String], Errno>
    /// Whether `path` may be accessed for `mode` (`F_OK`, `W_OK`), as `access(2)` says.
    func access(_ path: String, _ mode: Int32) -> Result<Void, Errno>

    /// Opens `path` with `flags` (O_CLOEXEC is always added), to read or write it again and again.
    func open(_ path: String, _ flags: Int32) -> Result<Int32, Errno>
    /// Opens `name` in the open directory `directoryFD` (`openat`), sparing a walk of the whole path.
    func open(_ name: String, in directoryFD: Int32, _ flags: Int32) -> Result<Int32, Errno>
    /// All of `fd` from offset 0: the file as the kernel renders it now.
    func readAll(_ fd: Int32) -> Result<String, Errno>
    /// Writes `text` at offset 0 of `fd` in one call.
    func write(_ text: String, to fd: Int32) -> Result<Void, Errno>
    func close(_ fd: Int32)

    /// Takes an exclusive lock on `directory` without waiting; `nil` when someone else holds it.
    func lockDirectory(_ directory: String) -> Result<(any DirectoryLock)?, Errno>

    /// A new non-blocking inotify instance, closed with ``close(_:)``.
    func makeInotify() -> Result<Int32, Errno>
    /// Adds a watch for modifications of `path` to the inotify instance `inotifyFD`; the watch.
    func watchModifications(of path: String, on inotifyFD: Int32) -> Result<Int32, Errno>
    func removeWatch(_ watch: Int32, from inotifyFD: Int32)
    /// Reads and discards whatever the non-blocking `fd` has ready.
    func drain(_ fd: Int32)

    /// Sends `signal` to process `pid` (`kill(2)`).
    func kill(_ pid: Int32, _ signal: Int32) -> Result<Void, Errno>
    /// Sends `signal` to the process whose `/proc/PID` directory is open as `fd`
    /// (`pidfd_send_signal(2)`): ESRCH once it is reaped, whoever has its pid since.
    func signal(processDirectory fd: Int32, _ signal: Int32) -> Result<Void, Errno>
}

extension FreezerSystem {
    /// Sends `signal` to the one process or process group `recipients` names (`kill(2)`, a group
    /// by its negated id); `false` for the tree, which only the unit knows how to reach.
    func kill(_ recipients: SignalRecipients, _ signal: Int32) -> Bool {
        switch recipients {
        case .process(let pid): _ = kill(pid, signal)
        case .processGroup(let id): _ = kill(-id, signal)
        case .tree: return false
        }
        return true
    }

    /// The subdirectories of `path`, or none when it can't be listed (a cgroup or process gone meanwhile).
    func subdirectoriesOrNone(of path: String) -> [String] {
        (try? subdirectories(of: path).get()) ?? []
    }
}

/// The real system calls, through ``FileIO``.
struct LinuxFreezerSystem: FreezerSystem {
    func readFile(_ path: String) -> Result<String, Errno> { FileIO.readFile(path) }
    func write(_ text: String, toFile path: String) -> Result<Void, Errno> { FileIO.write(text, toFile: path) }
    func makeDirectory(_ path: String) -> Result<Void, Errno> { FileIO.makeDirectory(path) }
    func removeDirectory(_ path: String) -> Result<Void, Errno> { FileIO.removeDirectory(path) }
    func subdirectories(of path: String) -> Result<[String], Errno> { FileIO.subdirectories(of: path) }

    func access(_ path: String, _ mode: Int32) -> Result<Void, Errno> {
        valueOrErrno { Glibc.access(path, mode) }.map { _ in () }
    }

    func open(_ path: String, _ flags: Int32) -> Result<Int32, Errno> { FileIO.open(path, flags) }
    func open(_ name: String, in directoryFD: Int32, _ flags: Int32) -> Result<Int32, Errno> {
        FileIO.open(name, in: directoryFD, flags)
    }
    func readAll(_ fd: Int32) -> Result<String, Errno> { Descriptor.readFromStart(fd) }
    func write(_ text: String, to fd: Int32) -> Result<Void, Errno> { Descriptor.writeAtStart(fd, text) }
    func close(_ fd: Int32) { _ = Glibc.close(fd) }

    func lockDirectory(_ directory: String) -> Result<(any DirectoryLock)?, Errno> {
        CgroupDirectoryLock.acquire(directory).map { $0 }
    }

    func makeInotify() -> Result<Int32, Errno> {
        valueOrErrno { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    func watchModifications(of path: String, on inotifyFD: Int32) -> Result<Int32, Errno> {
        valueOrErrno { inotify_add_watch(inotifyFD, path, UInt32(IN_MODIFY)) }
    }

    func removeWatch(_ watch: Int32, from inotifyFD: Int32) {
        // Its one failure, EINVAL, says the watch is gone already (its file was removed).
        _ = valueOrErrno { inotify_rm_watch(inotifyFD, watch) }
    }

    func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case .success(let count) = buffer.withUnsafeMutableBytes({ bytes in
            valueOrErrno { read(fd, bytes.baseAddress, bytes.count) }
        }), count > 0 {}
    }

    func kill(_ pid: Int32, _ signal: Int32) -> Result<Void, Errno> {
        valueOrErrno { Glibc.kill(pid, signal) }.map { _ in () }
    }

    func signal(processDirectory fd: Int32, _ signal: Int32) -> Result<Void, Errno> {
        valueOrErrno { _supervise_signal_process_directory(fd, signal) }.map { _ in () }
    }
}
