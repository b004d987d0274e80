import Glibc

// The client's own two helpers: it depends on SuperviseProtocol only, so SuperviseSystem's
// `valueOrErrno` and `Errno.sentenceText` are out of its reach.

/// Calls `body`, a system call that returns −1 and sets `errno` on failure, again while it
/// fails with EINTR: its result, or the errno it failed with.
func valueOrErrno<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, SystemError> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        if errno != EINTR { return .failure(SystemError(code: errno)) }
    }
}

/// An errno, with its text.
struct SystemError: Error, Equatable {
    let code: Int32

    /// The strerror text starting lower case, to read inside a sentence ("resource temporarily unavailable").
    var sentenceText: String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
