import SuperviseSystemCall
import _SuperviseCShims
import Glibc
import SystemPackage

/// What one non-blocking read got.
public enum ReadResult: Equatable, Sendable {
    /// This many bytes (more than zero).
    case bytes(Int)
    /// Nothing yet: the descriptor is non-blocking and empty (EAGAIN).
    case wouldBlock
    /// The writer closed its end: nothing more will come.
    case endOfFile
    /// The read failed.
    case failed(Errno)
}

/// The calls the layers above make on a descriptor they were given, by number.
public enum Descriptor {
    /// The supervisor's standard input, output and error.
    public static let standardInput: Int32 = 0
    public static let standardOutput: Int32 = 1
    public static let standardError: Int32 = 2

    /// Reads what `fd` has now, up to `buffer.count` bytes, retrying on EINTR.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        switch valueOrErrno({ Glibc.read(fd, buffer.baseAddress!, buffer.count) }) {
        case .success(0): .endOfFile
        case .success(let count): .bytes(count)
        case .failure(.resourceTemporarilyUnavailable): .wouldBlock
        case .failure(let error): .failed(error)
        }
    }

    /// Reads what `fd` has ready, without its being non-blocking: at most the bytes `FIONREAD`
    /// counts, so the read does not wait. For a descriptor inherited from the user's shell, whose
    /// flags belong to an open file description the shell shares: setting O_NONBLOCK on it would
    /// make the shell's next reader fail with EAGAIN. Call it only once `fd` polled readable: with
    /// nothing counted, the read takes an end of file (a pipe with no writer, a terminal's Ctrl-D);
    /// it could wait only if another process read the same stream between the poll and the read.
    public static func readReady(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        var ready: Int32 = 0
        if case .failure(let error) = valueOrErrno({ ioctl(fd, UInt(FIONREAD), &ready) }) { return .failed(error) }
        let count = ready > 0 ? min(Int(ready), buffer.count) : buffer.count
        return read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
    }

    /// Writes as much of `bytes` to `fd` as it takes, retrying on partial writes and EINTR: the
    /// bytes written, and the error that stopped it before the end (EAGAIN when a non-blocking
    /// pipe is full), if any.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> (written: Int, stoppedBy: Errno?) {
        var offset = 0
        while offset < bytes.count {
            switch valueOrErrno({ Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }) {
            // A write of more than zero bytes that writes none: never expected, never retried.
            case .success(0): return (offset, .ioError)
            case .success(let written): offset += written
            case .failure(let error): return (offset, error)
            }
        }
        return (offset, nil)
    }

    /// Writes all of `bytes` to `fd`, retrying on partial writes and EINTR.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Void, Errno> {
        write(fd, bytes).stoppedBy.map { .failure($0) } ?? .success(())
    }

    /// Writes all of `text` to `fd`, retrying on partial writes and EINTR.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ text: String) -> Result<Void, Errno> {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Sets O_NONBLOCK on `fd`.
    @discardableResult
    public static func setNonBlocking(_ fd: Int32) -> Result<Void, Errno> {
        valueOrErrno { fcntl(fd, F_GETFL) }
            .flatMap { flags in valueOrErrno { fcntl(fd, F_SETFL, flags | O_NONBLOCK) } }
            .map { _ in () }
    }

    /// Opens /dev/null for reading, close-on-exec: a child's stdin when the supervisor reads its own.
    public static func openNullDevice() -> Result<Int32, Errno> {
        openForReading("/dev/null")
    }

    /// Opens `path` for reading, close-on-exec, with `flags` added (O_NONBLOCK).
    public static func openForReading(_ path: String, flags: Int32 = 0) -> Result<Int32, Errno> {
        valueOrErrno { open(path, O_RDONLY | O_CLOEXEC | flags) }
    }

    /// A pipe, both ends close-on-exec (made so atomically, with `pipe2`).
    public static func pipe() -> Result<(readEnd: Int32, writeEnd: Int32), Errno> {
        var ends: [Int32] = [-1, -1]
        return valueOrErrno { _supervise_pipe_cloexec(&ends) }.map { _ in (ends[0], ends[1]) }
    }

    /// Reads all of `fd` from offset 0, whatever its position: a file the kernel renders (`/proc`,
    /// cgroup, sysfs), which gives a read all it has that fits, so a read that returns less than
    /// it asked for reached the end. A short file costs one read (a second would render it again).
    public static func readFromStart(_ fd: Int32) -> Result<String, Errno> {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { chunk in
            var bytes: [UInt8] = []
            while true {
                let offset = off_t(bytes.count)
                switch valueOrErrno({ pread(fd, chunk.baseAddress, chunk.count, offset) }) {
                case .failure(let error):
                    return .failure(error)
                case .success(let count) where count < chunk.count && bytes.isEmpty:
                    return .success(String(decoding: UnsafeBufferPointer(rebasing: chunk[..<count]), as: UTF8.self))
                case .success(let count):
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count]))
                    if count < chunk.count { return .success(String(decoding: bytes, as: UTF8.self)) }
                }
            }
        }
    }

    /// Writes `text` at offset 0 of `fd`, in one call, as cgroup files require.
    public static func writeAtStart(_ fd: Int32, _ text: String) -> Result<Void, Errno> {
        var text = text
        return text.withUTF8 { bytes in
            valueOrErrno { pwrite(fd, bytes.baseAddress, bytes.count, 0) }.map { _ in () }
        }
    }

    /// Closes `fd`. Not retried on EINTR: on Linux the descriptor is closed even then.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// One name in a directory.
    public struct DirectoryEntry: Equatable, Sendable {
        public var name: String
        /// What `readdir` says it is (`DT_DIR`, `DT_REG`, …; `DT_UNKNOWN` where the file system
        /// doesn't say).
        public var type: UInt8
    }

    /// The entries of the directory open as `directory` (`.` and `..` left out), read through a
    /// descriptor of their own: `directory` stays open and where it was.
    public static func directoryEntries(_ directory: Int32) -> Result<[DirectoryEntry], Errno> {
        valueOrErrno { openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }.flatMap { listing in
            pointerOrErrno { fdopendir(listing) }.mapError { error in
                close(listing)
                return error
            }
        }.flatMap { stream in
            defer { closedir(stream) }
            var entries: [DirectoryEntry] = []
            while true {
                // readdir returns nil at the end, and sets errno only when it failed.
                errno = 0
                guard let entry = readdir(stream) else {
                    return errno == 0 ? .success(entries) : .failure(Errno(rawValue: errno))
                }
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != ".", name != ".." { entries.append(DirectoryEntry(name: name, type: entry.pointee.d_type)) }
            }
        }
    }

    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }
}
