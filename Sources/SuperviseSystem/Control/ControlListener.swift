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
public final class ControlListener {
    public let fd: Int32
    public let path: String
    /// The group whose members are served besides the supervisor's user and root.
    public let group: UInt32?

    /// Listens at `path`. A socket file there that nobody answers (its supervisor died) is
    /// replaced; one that answers, or any other file, is refused.
    public init(path: String, group: UInt32?) throws(SupervisorError) {
        func failure(_ why: String, _ errno: Int32? = nil) -> SupervisorError {
            SupervisorError(.system, "cannot listen on the control socket '\(path)': \(why)", errno: errno)
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw failure("the path exists and is not a socket")
            }
            switch ControlListener.probe(path) {
            case .answered(let listener):
                throw failure(Self.describe(listener: listener))
            case .nobody:
                _ = unlink(path)
            case .failed(let error):
                throw failure(error.sentenceText, error.rawValue)
            }
        }
        let mode: mode_t = group == nil ? 0o600 : 0o660
        switch valueOrErrno({ _supervise_unix_listen(path, mode, group ?? UInt32.max) }) {
        case .success(let fd): self.fd = fd
        case .failure(let error): throw failure(error.sentenceText, error.rawValue)
        }
        self.path = path
        self.group = group
    }

    /// What a connection to an existing socket file found: who listens there (its PID, from
    /// SO_PEERCRED; 0 outside this PID namespace), nobody, or a failure.
    enum Probe { case answered(pid: Int32), nobody, failed(Errno) }

    /// Connects to `path` and asks the kernel who listens there: nothing is written or read,
    /// so a listener that never answers (another program, a stopped supervisor) can't hang it.
    private static func probe(_ path: String) -> Probe {
        switch valueOrErrno({ _supervise_unix_connect(path) }) {
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
        /// A connection, non-blocking and close-on-exec, with its peer's credentials.
        case connection(fd: Int32, peer: PeerCredentials)
        /// None is pending.
        case none
        /// Accepting failed (out of descriptors): the pending connection stays pending.
        case failed(Errno)
    }

    /// The next pending connection.
    public func accept() -> Accepted {
        while true {
            let fd: Int32
            switch valueOrErrno({ _supervise_unix_accept(self.fd) }) {
            case .success(let accepted): fd = accepted
            case .failure(.resourceTemporarilyUnavailable): return .none
            // The client gave up before it was accepted: take the next one.
            case .failure(.connectionAbort): continue
            case .failure(let error): return .failed(error)
            }
            var uid: uid_t = 0, gid: gid_t = 0, inGroup: Int32 = 0
            guard _supervise_peer_credentials(fd, &uid, &gid, group ?? UInt32.max, &inGroup) == 0 else {
                Descriptor.close(fd)
                continue
            }
            return .connection(fd: fd, peer: PeerCredentials(uid: uid, gid: gid, inSocketGroup: inGroup != 0))
        }
    }

    /// Whether `peer` may send commands: the supervisor's own user, root, or a member of the group.
    public func serves(_ peer: PeerCredentials) -> Bool {
        peer.uid == getuid() || peer.uid == 0 || peer.inSocketGroup
    }

    /// Stops listening and removes the socket file.
    public func remove() {
        Descriptor.close(fd)
        _ = unlink(path)
    }
}
