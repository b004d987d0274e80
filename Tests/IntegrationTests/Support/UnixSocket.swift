import Foundation

/// A client of the control socket that speaks to it directly, without a `supervise ctl` process:
/// for silent connections, binding a path, and questions asked faster than a process starts.
enum UnixSocket {
    /// Calls `body` with `path` as a Unix socket address and its length.
    static func withAddress(of path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// A connected Unix stream socket to `path`.
    static func connect(_ path: String) throws -> Int32 {
        let fd = Foundation.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withAddress(of: path) { Foundation.connect(fd, $0, $1) }
        guard fd >= 0, connected == 0 else {
            let error = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)
        }
        return fd
    }

    /// What `fd` carries until its end, or until `timeout` seconds pass without a byte.
    static func readToEnd(_ fd: Int32, timeout: Double) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { break }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `command` on a connection of its own and returns every line of the answer, the
    /// outcome line (`ok`, `error …`) last: the supervisor closes the connection after it.
    static func ask(_ path: String, _ command: String, timeout: Double = 10) throws -> [String] {
        let fd = try connect(path)
        defer { close(fd) }
        let line = Array((command + "\n").utf8)
        guard write(fd, line, line.count) == line.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return readToEnd(fd, timeout: timeout).split(separator: "\n").map(String.init)
    }
}
