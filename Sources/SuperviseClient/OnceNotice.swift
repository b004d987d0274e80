import Glibc
import SuperviseSystemCall
import Synchronization

/// A line the library says on standard error at most once in the life of a process, for a
/// mistake that would otherwise pass in silence.
final class OnceNotice: Sendable {
    /// Channels in the environment that are meant for another process (see
    /// ``SupervisorEnvironment/take(notice:)``).
    static let foreignChannels = OnceNotice()

    private let said = Atomic<Bool>(false)
    private let write: @Sendable (String) -> Void

    init(write: @escaping @Sendable (String) -> Void = OnceNotice.writeToStandardError) {
        self.write = write
    }

    /// Says `line` if nothing was said through this notice before.
    func say(_ line: @autoclosure () -> String) {
        guard !said.exchange(true, ordering: .relaxed) else { return }
        write(line())
    }

    /// Writes `line` and a newline to descriptor 2; a failed write is dropped.
    static func writeToStandardError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                valueOrErrno { Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            guard case .success(let written) = result, written > 0 else { return }
            offset += written
        }
    }
}
