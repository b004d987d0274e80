import Foundation

extension Pipe {
    /// A pipe whose two ends are close-on-exec. Foundation's `Pipe()` is not: a process another
    /// test starts meanwhile inherits both ends, and an inherited write end keeps the reader from
    /// seeing end-of-file until that process ends. `Process` still gives its own child the end
    /// it is handed, as its stdin, stdout or stderr.
    public static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        return pipe
    }
}
