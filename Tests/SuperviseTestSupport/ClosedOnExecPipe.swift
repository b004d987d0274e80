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

extension FileHandle {
    /// Writes `text` to a pipe whose reader may end without reading all of it (a command that
    /// fails at once, a script that reads one line). Foundation's `write(_:)` traps on the
    /// EPIPE that is then no fault of the test's, and takes the whole run down with it; what
    /// the reader did with its input is for the test's own expectations to judge.
    public func writeUnlessReaderEnded(_ text: String) {
        _ = try? write(contentsOf: Data(text.utf8))
    }
}
