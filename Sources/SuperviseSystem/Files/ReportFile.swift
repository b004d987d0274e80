#if canImport(Glibc)
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
        let fd = retryingOnInterrupt { mkstemp(&template) }
        guard fd >= 0 else { return .failure(Errno(rawValue: errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let synced = writeAll(fd, text) && retryingOnInterrupt { fsync(fd) } == 0
        let failure = synced ? nil : Errno(rawValue: errno)
        close(fd)
        if let failure {
            unlink(temporary)
            return .failure(failure)
        }
        guard rename(temporary, path) == 0 else {
            let error = Errno(rawValue: errno)
            unlink(temporary)
            return .failure(error)
        }
        return .success(())
    }
}
#endif
