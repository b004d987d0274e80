import SuperviseSystemCall
import Glibc
import SystemPackage

/// The service manager's notification socket (`$NOTIFY_SOCKET`, systemd's `sd_notify`): a datagram
/// `AF_UNIX` socket at a path, or at an abstract name written with a leading `@`. Sends never wait:
/// a message the manager can't take now is lost, never the run's time.
public final class ServiceManagerSocket {
    private let fd: Int32
    private var address: sockaddr_un
    private let addressLength: socklen_t
    private var hasFailed = false

    /// Opens a socket to send to `path`, or says in one line why it can't.
    public init(path: String) throws(SupervisorError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let abstract = path.hasPrefix("@")
        var bytes = Array(path.utf8)
        guard abstract || path.hasPrefix("/") else {
            throw SupervisorError(.system, "NOTIFY_SOCKET=\(path) is neither a path nor an abstract name (@NAME)")
        }
        // An abstract name starts with a zero byte and has no terminator; a path ends with one.
        if abstract { bytes[0] = 0 } else { bytes.append(0) }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count <= capacity else {
            throw SupervisorError(.system, "NOTIFY_SOCKET=\(path) is longer than a socket address (\(capacity - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        switch valueOrErrno({ socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }) {
        case .success(let fd): self.fd = fd
        case .failure(let error):
            throw SupervisorError(.system, "NOTIFY_SOCKET=\(path): no socket: \(error.sentenceText)", errno: error.rawValue)
        }
        self.address = address
        self.addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
    }

    deinit { Descriptor.close(fd) }

    /// Sends `message` as one datagram without waiting (`MSG_DONTWAIT`). The first failure is
    /// returned as one line to log; later ones are dropped silently (`nil`), as is every success.
    public func send(_ message: String) -> String? {
        var message = message
        let sent = message.withUTF8 { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                    valueOrErrno { sendto(fd, text.baseAddress, text.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), target, addressLength) }
                }
            }
        }
        guard case .failure(let error) = sent, !hasFailed else { return nil }
        hasFailed = true
        return "the service manager was not told \(message.split(separator: "\n").joined(separator: ", ")): "
            + "\(error.sentenceText) (later failures are not logged)"
    }
}
