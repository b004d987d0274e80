import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// The few file-system calls the freezers make by path, retried on EINTR and returning `Errno`;
/// what they do on a descriptor is `Descriptor`'s.
enum FileIO {
    /// Opens `path` with `flags` (O_CLOEXEC is always added).
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Result<Int32, Errno> {
        valueOrErrno { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Opens `name` in the open directory `directoryFD` with `flags` (O_CLOEXEC is always added).
    static func open(_ name: String, in directoryFD: Int32, _ flags: Int32) -> Result<Int32, Errno> {
        valueOrErrno { openat(directoryFD, name, flags | O_CLOEXEC) }
    }

    /// Reads the whole file at `path`.
    static func readFile(_ path: String) -> Result<String, Errno> {
        open(path, O_RDONLY).flatMap { fd in
            defer { Descriptor.close(fd) }
            return Descriptor.readFromStart(fd)
        }
    }

    /// Writes `text` to the file at `path`.
    static func write(_ text: String, toFile path: String) -> Result<Void, Errno> {
        open(path, O_WRONLY).flatMap { fd in
            defer { Descriptor.close(fd) }
            return Descriptor.writeAtStart(fd, text)
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
        open(path, O_RDONLY | O_DIRECTORY).flatMap { directory in
            defer { Descriptor.close(directory) }
            return Descriptor.directoryEntries(directory).map { entries in
                entries.filter { $0.type == UInt8(DT_DIR) }.map(\.name)
            }
        }
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
