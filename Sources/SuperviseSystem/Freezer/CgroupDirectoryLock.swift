import SuperviseSystemCall
import Glibc
import SystemPackage

/// A lock that says a directory is in use, held until released.
protocol DirectoryLock: AnyObject {
    /// Whether `directory` still names the directory this lock is on.
    func isOn(_ directory: String) -> Bool
    /// Drops the lock. Safe to call more than once.
    func release()
}

/// An exclusive `flock` on a cgroup directory: how a supervisor says that its cgroup is in use.
///
/// A supervisor holds one on its own cgroup for its whole life, and the kernel drops it when the
/// supervisor dies, however it dies. The lock belongs to the directory's inode, so every pid and
/// mount namespace that sees the directory sees the lock; a sweep judges a cgroup by it, never by a pid.
final class CgroupDirectoryLock: DirectoryLock {
    /// The open directory (O_CLOEXEC: no child inherits it); -1 once released.
    private var fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    /// Locks `directory` without waiting; `nil` when another open of it holds the lock.
    static func acquire(_ directory: String) -> Result<CgroupDirectoryLock?, Errno> {
        FileIO.open(directory, O_RDONLY | O_DIRECTORY).flatMap { fd in
            switch valueOrErrno({ flock(fd, LOCK_EX | LOCK_NB) }) {
            case .success:
                return .success(CgroupDirectoryLock(fd: fd))
            case .failure(let error):
                Descriptor.close(fd)
                return error == .wouldBlock ? .success(nil) : .failure(error)
            }
        }
    }

    /// Whether `directory` still names the directory this lock is on: a sweep may have removed
    /// it (and anyone made another of that name) between its opening and its locking.
    func isOn(_ directory: String) -> Bool {
        var locked = stat(), named = stat()
        guard case .success = valueOrErrno({ fstat(fd, &locked) }),
              case .success = valueOrErrno({ stat(directory, &named) }) else { return false }
        return locked.st_dev == named.st_dev && locked.st_ino == named.st_ino
    }

    /// Closes the directory, which drops the lock. Safe to call more than once.
    func release() {
        guard fd >= 0 else { return }
        Descriptor.close(fd)
        fd = -1
    }

    deinit {
        release()
    }
}
