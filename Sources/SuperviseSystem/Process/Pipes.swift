import Glibc
import _SuperviseCShims

/// The two pipes of the child protocol: events (supervisor → child) and requests (child → supervisor).
///
/// Every end is close-on-exec; the spawner places the child's ends at fds 3 and 4.
/// The supervisor's ends are non-blocking: it never blocks on a child.
public struct ProtocolChannels: Sendable {
    /// The child's end of the events pipe (its fd 3).
    public let eventsRead: Int32
    /// The child's end of the requests pipe (its fd 4).
    public let requestsWrite: Int32
    /// The supervisor's end of the events pipe, non-blocking.
    public let eventsWrite: Int32
    /// The supervisor's end of the requests pipe, non-blocking.
    public let requestsRead: Int32

    /// Creates both pipes.
    public init() throws(SupervisorError) {
        let events = try Self.makePipe(nonBlocking: \.write)
        let requests: (read: Int32, write: Int32)
        do {
            requests = try Self.makePipe(nonBlocking: \.read)
        } catch {
            close(events.read)
            close(events.write)
            throw error
        }
        eventsRead = events.read
        eventsWrite = events.write
        requestsRead = requests.read
        requestsWrite = requests.write
    }

    /// Closes the child's ends, once the child has them (after spawning, or when the spawn failed).
    ///
    /// The supervisor must not keep `requestsWrite` open, or the requests pipe never reaches EOF.
    public func closeChildEnds() {
        close(eventsRead)
        close(requestsWrite)
    }

    /// Closes the supervisor's ends, once the child is gone.
    public func closeSupervisorEnds() {
        close(eventsWrite)
        close(requestsRead)
    }

    /// A close-on-exec pipe whose `nonBlocking` end (the supervisor's) is non-blocking.
    private static func makePipe(
        nonBlocking supervisorEnd: KeyPath<(read: Int32, write: Int32), Int32>
    ) throws(SupervisorError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard _supervise_pipe2(&fds, O_CLOEXEC) == 0 else {
            throw failure("create a protocol pipe", errno)
        }
        let ends = (read: fds[0], write: fds[1])
        let flags = fcntl(ends[keyPath: supervisorEnd], F_GETFL)
        guard flags >= 0, fcntl(ends[keyPath: supervisorEnd], F_SETFL, flags | O_NONBLOCK) == 0 else {
            let error = errno
            close(ends.read)
            close(ends.write)
            throw failure("make a protocol pipe non-blocking", error)
        }
        return ends
    }

    private static func failure(_ action: String, _ error: Int32) -> SupervisorError {
        SupervisorError(
            .system,
            "cannot \(action): \(String(cString: strerror(error))); "
                + "raise the open-files limit (ulimit -n) or run fewer children",
            errno: error)
    }
}
