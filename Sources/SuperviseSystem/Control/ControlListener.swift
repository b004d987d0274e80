import SuperviseSystemCall
import _SuperviseCShims
import Glibc
import SystemPackage

/// Who is at the other end of a control connection (SO_PEERCRED).
public struct PeerCredentials: Equatable, Sendable {
    public let uid: UInt32
    public let gid: UInt32
    /// The socket's group (`--socket-group`) is one of the peer's groups.
    public let inSocketGroup: Bool
}

/// The listening end of the control socket (`--socket PATH`): a Unix stream socket made 0600,
/// or 0660 owned by a group, polled in the event loop; removed by ``remove()``.
///
/// Nothing is done by name to a file at the path that the supervisor did not make: the socket is
/// made with its mode and group in a private directory and renamed into place (`unix_socket.c`),
/// and removed at the end only while the path still names that socket (docs/security.md).
public final class ControlListener {
    public let fd: Int32
    public let path: String
    /// The group whose members are served besides the supervisor's user and root.
    public let group: UInt32?
    /// The socket file made: removed only if the path still names it.
    private let device: dev_t, inode: ino_t

    /// Listens at `path`. A socket file there that nobody answers (its supervisor died) is
    /// replaced; one that answers, or any other file, is refused.
    public init(path: String, group: UInt32?) throws(SupervisorError) {
        func failure(_ why: String, _ errno: Int32? = nil) -> SupervisorError {
            SupervisorError(.system, "cannot listen on the control socket '\(path)': \(why)", errno: errno)
        }
        var info = stat()
        if case .success = valueOrErrno({ lstat(path, &info) }) {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw failure("the path exists and is not a socket")
            }
            switch ControlListener.probe(path) {
            case .answered(let listener):
                throw failure(Self.describe(listener: listener))
            case .nobody:
                if case .failure(let error) = valueOrErrno({ unlink(path) }), error != .noSuchFileOrDirectory {
                    throw failure("cannot remove the stale socket: \(error.sentenceText)", error.rawValue)
                }
            case .failed(let error):
                throw failure(error.sentenceText, error.rawValue)
            }
        }
        let mode: mode_t = group == nil ? 0o600 : 0o660
        var device: dev_t = 0, inode: ino_t = 0
        switch valueOrErrno({ _supervise_unix_listen(path, mode, group ?? UInt32.max, &device, &inode) }) {
        case .success(let fd): (self.fd, self.device, self.inode) = (fd, device, inode)
        case .failure(let error): throw failure(error.sentenceText, error.rawValue)
        }
        self.path = path
        self.group = group
        restoreReserve()
    }

    /// What a connection to an existing socket file found: who listens there (its PID, from
    /// SO_PEERCRED; 0 outside this PID namespace), nobody, or a failure.
    enum Probe { case answered(pid: Int32), nobody, failed(Errno) }

    /// Connects to `path` and asks the kernel who listens there: nothing is written or read,
    /// so a listener that never answers (another program, a stopped supervisor) can't hang it.
    private static func probe(_ path: String) -> Probe {
        switch valueOrErrno({ _supervise_unix_connect(path, -1) }) {
        case .success(let fd):
            let pid = _supervise_peer_pid(fd)
            Descriptor.close(fd)
            return .answered(pid: max(pid, 0))
        case .failure(.connectionRefused): return .nobody
        case .failure(let error): return .failed(error)
        }
    }

    /// Why a live socket is refused, saying who listens there: a supervisor (by its process
    /// name in `/proc`), another program, or a process this PID namespace can't see.
    static func describe(listener pid: Int32) -> String {
        guard pid > 0 else {
            return "a process outside this PID namespace is listening there (choose another path)"
        }
        guard case .success(let bytes) = RegularFile.read("/proc/\(pid)/comm", maxSize: 64) else {
            return "pid \(pid) is listening there (choose another path)"
        }
        let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        if name == "supervise" {
            return "another supervisor (pid \(pid)) is listening there (stop it, or choose another path)"
        }
        return "pid \(pid) (\(name)) is listening there, not a supervisor (choose another path)"
    }

    /// What one `accept` got.
    public enum Accepted {
        /// A connection, non-blocking and close-on-exec, with its peer's credentials;
        /// `onReserve` when it took the reserve descriptor (see ``restoreReserve()``).
        case connection(fd: Int32, peer: PeerCredentials, onReserve: Bool)
        /// None is pending.
        case none
        /// Accepting failed, and no reserve descriptor was left to take the connection with:
        /// it stays pending.
        case failed(Errno)
    }

    /// The next pending connection. Out of descriptors, the reserve is given up to take it, so
    /// that the caller can answer and close it: a waiting client never stalls the socket.
    public func accept() -> Accepted {
        while true {
            let fd: Int32
            var onReserve = false
            switch valueOrErrno({ _supervise_unix_accept(self.fd) }) {
            case .success(let accepted): fd = accepted
            case .failure(.resourceTemporarilyUnavailable): return .none
            // The client gave up before it was accepted: take the next one.
            case .failure(.connectionAbort): continue
            case .failure(let error) where (error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem) && reserve != nil:
                Descriptor.close(reserve!)
                reserve = nil
                // accept fails for want of a descriptor before it looks for a connection.
                switch valueOrErrno({ _supervise_unix_accept(self.fd) }) {
                case .success(let accepted): (fd, onReserve) = (accepted, true)
                case .failure(.resourceTemporarilyUnavailable):
                    restoreReserve()
                    return .none
                case .failure(let error):
                    restoreReserve()
                    return .failed(error)
                }
            case .failure(let error): return .failed(error)
            }
            var uid: uid_t = 0, gid: gid_t = 0, inGroup: Int32 = 0
            guard _supervise_peer_credentials(fd, &uid, &gid, group ?? UInt32.max, &inGroup) == 0 else {
                Descriptor.close(fd)
                continue
            }
            return .connection(fd: fd, peer: PeerCredentials(uid: uid, gid: gid, inSocketGroup: inGroup != 0),
                               onReserve: onReserve)
        }
    }

    /// A descriptor (/dev/null) held so that one connection can always be accepted, answered
    /// and closed, even when the supervisor is out of descriptors.
    private var reserve: Int32?

    /// Takes a reserve descriptor again, after the connection made on it was closed; whether one
    /// is held now.
    @discardableResult
    public func restoreReserve() -> Bool {
        if reserve == nil, case .success(let fd) = Descriptor.openNullDevice() { reserve = fd }
        return reserve != nil
    }

    /// Whether `peer` may send commands: the supervisor's own user, root, or a member of the group.
    public func serves(_ peer: PeerCredentials) -> Bool {
        peer.uid == getuid() || peer.uid == 0 || peer.inSocketGroup
    }

    /// Stops listening and removes the socket file, unless something else took its name.
    public func remove() {
        Descriptor.close(fd)
        if let reserve { Descriptor.close(reserve) }
        var info = stat()
        guard case .success = valueOrErrno({ lstat(path, &info) }), info.st_dev == device, info.st_ino == inode else { return }
        // Leaving: a socket file it could not remove is a stale one the next supervisor replaces.
        _ = valueOrErrno { unlink(path) }
    }
}
