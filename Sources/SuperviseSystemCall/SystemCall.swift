import Glibc
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

/// Calls `body`, a call that returns a pointer, or nil and sets `errno` on failure (`opendir`),
/// until it does not fail with EINTR: the pointer, or the `Errno` it failed with.
public func pointerOrErrno<T>(_ body: () -> T?) -> Result<T, Errno> {
    while true {
        if let result = body() { return .success(result) }
        if errno != EINTR { return .failure(Errno(rawValue: errno)) }
    }
}

/// Calls `body`, a call that returns 0 or the error number itself and leaves `errno` alone
/// (`pthread_sigmask`, `getpwnam_r`): nothing, or the `Errno` it returned.
public func statusOrErrno(_ body: () -> Int32) -> Result<Void, Errno> {
    let status = body()
    return status == 0 ? .success(()) : .failure(Errno(rawValue: status))
}

extension Errno {
    /// The strerror text starting lower case, to read inside a sentence ("permission denied").
    public var sentenceText: String {
        let text = String(cString: strerror(rawValue))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
