#if canImport(Glibc)
import Glibc
#endif

/// Retries `body` while it fails with EINTR; returns its result (−1 with `errno` set on failure).
@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
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
func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
}
