import Foundation

/// TCP on 127.0.0.1: a free port for a server, and a plain HTTP request with a deadline.
enum Loopback {
    /// A port nothing listens on now, chosen by the kernel (bind to port 0), so concurrent
    /// test runs on this machine don't pick the same one.
    static func freePort() -> UInt16? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = self.address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// The status line of `GET /` answered on `port`, or nil when no answer came within `timeout`
    /// seconds (a frozen server's kernel still accepts the connection, but nobody answers).
    static func httpStatusLine(port: UInt16, timeout: Double) -> String? {
        httpAnswer(port: port, timeout: timeout, whole: false)?.components(separatedBy: "\r\n").first
    }

    /// The answer to `GET /` on `port` (HTTP/1.0: the server closes the connection after it),
    /// headers and body; nil when none came, or with `whole` when the connection did not end
    /// within `timeout` seconds of quiet. Without `whole`, the first bytes that came.
    static func httpAnswer(port: UInt16, timeout: Double, whole: Bool = true) -> String? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = self.address(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let request = Array("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard connected, send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { return whole || answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self) }
            answer += buffer[..<count]
            if !whole { break }
        }
        return answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self)
    }

    private static func address(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
