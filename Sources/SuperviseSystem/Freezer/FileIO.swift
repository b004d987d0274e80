import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// The few file-system calls the freezers make, retried on EINTR and returning `Errno`.
enum FileIO {
    /// Opens `path` with `flags` (O_CLOEXEC is always added).
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Result<Int32, Errno> {
        valueOrErrno { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Opens `name` in the open directory `directoryFD` with `flags` (O_CLOEXEC is always added).
    static func open(_ name: String, in directoryFD: Int32, _ flags: Int32) -> Result<Int32, Errno> {
        valueOrErrno { openat(directoryFD, name, flags | O_CLOEXEC) }
    }

    /// Reads all of `fd` from offset 0 (cgroup and proc files are small).
    static func readAll(_ fd: Int32) -> Result<String, Errno> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let offset = off_t(bytes.count)
            let result = chunk.withUnsafeMutableBytes { buffer in
                valueOrErrno { pread(fd, buffer.baseAddress, buffer.count, offset) }
            }
            switch result {
            case .failure(let error): return .failure(error)
            case .success(0): return .success(String(decoding: bytes, as: UTF8.self))
            case .success(let count): bytes += chunk[0..<count]
            }
        }
    }

    /// Reads the whole file at `path`.
    static func readFile(_ path: String) -> Result<String, Errno> {
        open(path, O_RDONLY).flatMap { fd in
            defer { close(fd) }
            return readAll(fd)
        }
    }

    /// Writes `text` at offset 0 of `fd`, in one call as cgroup files require.
    static func write(_ text: String, to fd: Int32) -> Result<Void, Errno> {
        var text = text
        return text.withUTF8 { bytes in
            valueOrErrno { pwrite(fd, bytes.baseAddress, bytes.count, 0) }.map { _ in () }
        }
    }

    /// Writes `text` to the file at `path`.
    static func write(_ text: String, toFile path: String) -> Result<Void, Errno> {
        open(path, O_WRONLY).flatMap { fd in
            defer { close(fd) }
            return write(text, to: fd)
        }
    }

    static func makeDirectory(_ path: String) -> Result<Void, Errno> {
        valueOrErrno { mkdir(path, 0o755) }.map { _ in () }
    }

    static func removeDirectory(_ path: String) -> Result<Void, Errno> {
        valueOrErrno { rmdir(path) }.map { _ in () }
    }

    /// The names of the subdirectories of `path`.
    static func subdirectories(of path: String) -> Result<[String], Errno> {
        guard let directory = opendir(path) else { return .failure(Errno(rawValue: errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            guard entry.pointee.d_type == UInt8(DT_DIR) else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// The extended attribute `name` of `path` as text (`getxattr`, without following a last
    /// symbolic link), or nil when it has none or it can't be read.
    static func extendedAttribute(_ name: String, of path: String) -> String? {
        var value = [UInt8](repeating: 0, count: 256)
        let result = value.withUnsafeMutableBytes { buffer in
            valueOrErrno { lgetxattr(path, name, buffer.baseAddress, buffer.count) }
        }
        guard case .success(let count) = result else { return nil }
        return String(decoding: value[0..<count], as: UTF8.self)
    }
}
