import SuperviseSystemCall
import Glibc
import SystemPackage

/// Writes a file whole or not at all, safely in a directory others may write to.
public enum ReportFile {
    /// Writes `text` to `path`: into a new file with a random name in the same directory
    /// (made with `O_CREAT | O_EXCL`, as `mkstemp` does, so no link or FIFO placed there in
    /// advance is ever followed or opened), synced, then renamed over `path`. The file is 0600.
    public static func write(_ text: String, to path: String) -> Result<Void, Errno> {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((directory + "." + name + ".XXXXXX").utf8CString)
        let fd: Int32
        switch valueOrErrno({ mkstemp(&template) }) {
        case .success(let made): fd = made
        case .failure(let error): return .failure(error)
        }
        _ = valueOrErrno { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let synced = Descriptor.writeAll(fd, text).flatMap { valueOrErrno { fsync(fd) }.map { _ in () } }
        Descriptor.close(fd)
        if case .failure = synced {
            unlink(temporary)
            return synced
        }
        if case .failure(let error) = valueOrErrno({ rename(temporary, path) }) {
            unlink(temporary)
            return .failure(error)
        }
        return .success(())
    }
}
