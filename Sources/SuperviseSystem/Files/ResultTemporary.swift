import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// The temporary file a result is written to beside its destination NAME:
/// `.NAME.supervise-XXXXXXXX` (8 random lowercase hex digits), made new (`O_CREAT | O_EXCL |
/// O_NOFOLLOW`, 0600) and held locked (`flock`) by its writer until it has taken the
/// destination's place or been removed.
///
/// A supervisor killed while writing (SIGKILL, the OOM killer) leaves it behind, and the kernel
/// drops its lock. ``sweep(in:for:owners:)`` removes such files, as stale cgroups of dead
/// supervisors are removed: judged by the lock, never by a pid (pids repeat across namespaces).
struct ResultTemporary {
    /// The open file, locked unless the file system has no `flock`.
    let fd: Int32
    let name: String

    static let marker = ".supervise-"
    static let tokenDigits = 8

    /// The temporary name for `destination` with `token`.
    static func name(for destination: String, token: UInt32) -> String {
        let hex = String(token, radix: 16)
        return "." + destination + marker + String(repeating: "0", count: tokenDigits - hex.count) + hex
    }

    /// Whether `entry` is a temporary name for `destination` in this form, and nothing else.
    static func matches(_ entry: String, for destination: String) -> Bool {
        let prefix = "." + destination + marker
        guard entry.hasPrefix(prefix) else { return false }
        let token = entry.utf8.dropFirst(prefix.utf8.count)
        return token.count == tokenDigits && token.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
    }

    /// A new, empty, locked 0600 temporary file for `destination` in `directory`: never a link
    /// or anything already there. One a sweep took between its making and its locking is left
    /// to that sweep, and another is made.
    static func create(in directory: Int32, for destination: String) -> Result<ResultTemporary, Errno> {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let name = name(for: destination, token: generator.next())
            let made = valueOrErrno { openat(directory, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
            switch made {
            case .failure(.fileExists): continue
            case .failure(let error): return .failure(error)
            case .success(let fd):
                switch valueOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }) {
                case .failure(.wouldBlock):
                    Descriptor.close(fd)  // a sweep holds it and removes it
                    continue
                case .success where !names(directory, name, fd):
                    Descriptor.close(fd)  // a sweep removed it before the lock
                    continue
                case .success, .failure:
                    // Without flock here the file stays unlocked, and no sweep can lock it to remove it.
                    return .success(ResultTemporary(fd: fd, name: name))
                }
            }
        }
        return .failure(.fileExists)
    }

    /// Removes the temporary files for `destination` in `directory` whose writers are gone: regular
    /// files with a name in this form, owned by one of `owners`, and not locked. Never a link,
    /// never another kind of file, never a file of another name; every step is made through the
    /// directory's descriptor and the file's own. Returns how many were removed.
    static func sweep(in directory: Int32, for destination: String, owners: [UInt32]) -> Int {
        guard case .success(let entries) = Descriptor.directoryEntries(directory) else { return 0 }
        let candidates = entries.map(\.name).filter { matches($0, for: destination) }
        return candidates.filter { removeIfStale($0, in: directory, owners: owners) }.count
    }

    /// Removes `name` if it is a regular file of one of `owners` that nobody holds locked. The
    /// file is opened without following a link (`O_PATH`), looked at, and only once it is known
    /// to be that regular file reopened to try its lock.
    private static func removeIfStale(_ name: String, in directory: Int32, owners: [UInt32]) -> Bool {
        guard case .success(let place) = valueOrErrno({ openat(directory, name, _SUPERVISE_O_PATH | O_NOFOLLOW | O_CLOEXEC) })
        else { return false }
        defer { Descriptor.close(place) }
        var status = stat()
        guard case .success = valueOrErrno({ fstat(place, &status) }), status.st_mode & S_IFMT == S_IFREG,
              owners.contains(status.st_uid),
              case .success(let fd) = valueOrErrno({ open("/proc/self/fd/\(place)", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) })
        else { return false }
        defer { Descriptor.close(fd) }
        guard FileIdentity(fd, "", flags: _SUPERVISE_AT_EMPTY_PATH) == FileIdentity(status),
              case .success = valueOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }), names(directory, name, fd)
        else { return false }
        if case .success = valueOrErrno({ unlinkat(directory, name, 0) }) { return true }
        return false
    }

    /// Whether `name` in `directory` is still the file open as `fd`.
    private static func names(_ directory: Int32, _ name: String, _ fd: Int32) -> Bool {
        guard let open = FileIdentity(fd, "", flags: _SUPERVISE_AT_EMPTY_PATH) else { return false }
        return FileIdentity(directory, name, flags: AT_SYMLINK_NOFOLLOW) == open
    }
}
