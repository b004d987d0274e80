#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Calls `body`, a system call that returns −1 and sets `errno` on failure, until it does not
/// fail with EINTR: its result, or the `Errno` it failed with. The one way to make a call.
public func valueOrErrno<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        if errno != EINTR { return .failure(Errno(rawValue: errno)) }
    }
}

/// Retries `body` while it fails with EINTR; returns its result (−1 with `errno` set on failure).
@inline(__always)
public func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// `strerror` as a Swift string.
func describeErrno(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Sets O_NONBLOCK on `fd`.
public func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
}

/// Writes all of `text` to `fd`, retrying on partial writes and EINTR.
@discardableResult
public func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var text = text
    return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}

/// Writes all of `bytes` to `fd`, retrying on partial writes and EINTR; whether all was written
/// (on `false`, `errno` says why).
@discardableResult
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let written = retryingOnInterrupt { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}

extension Errno {
    /// The strerror text starting lower case, to read inside a sentence ("permission denied").
    public var sentenceText: String {
        let text = String(cString: strerror(rawValue))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
