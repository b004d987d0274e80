import Foundation
import SuperviseTestSupport

/// A service manager's notification socket, as systemd makes it for `Type=notify`: a datagram
/// `AF_UNIX` socket bound at a path or an abstract name (`@NAME`). Collects what is sent to it.
final class NotifyListener {
    /// The address as `$NOTIFY_SOCKET` gives it.
    let address: String
    private let fd: Int32
    private var received: [String] = []

    /// Binds at `address`: a path, or `@NAME` for an abstract name.
    init(address: String) throws {
        self.address = address
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var name = sockaddr_un()
        name.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        if address.hasPrefix("@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &name.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (address.hasPrefix("@") ? 0 : 1))
        let bound = withUnsafePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard fd >= 0, bound == 0 else { throw SetupFailure("notify socket \(address): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Every datagram received so far, oldest first.
    var messages: [String] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received.append(String(decoding: buffer[..<count], as: UTF8.self))
        }
        return received
    }

    /// Every assignment received so far, one line each, oldest first.
    var assignments: [String] { messages.flatMap { $0.split(separator: "\n").map(String.init) } }

    /// Waits up to `timeout` seconds for an assignment starting with `prefix`.
    func waitFor(_ prefix: String, timeout: Double = 20) -> Bool {
        eventually(timeout: timeout, interval: 0.01) { assignments.contains { $0.hasPrefix(prefix) } }
    }
}
