import SuperviseSystemCall
import SystemPackage

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
        let events = try Self.makePipe(nonBlocking: \.writeEnd)
        let requests: (readEnd: Int32, writeEnd: Int32)
        do {
            requests = try Self.makePipe(nonBlocking: \.readEnd)
        } catch {
            Descriptor.close(events.readEnd)
            Descriptor.close(events.writeEnd)
            throw error
        }
        eventsRead = events.readEnd
        eventsWrite = events.writeEnd
        requestsRead = requests.readEnd
        requestsWrite = requests.writeEnd
    }

    /// Closes the child's ends, once the child has them (after spawning, or when the spawn failed).
    ///
    /// The supervisor must not keep `requestsWrite` open, or the requests pipe never reaches EOF.
    public func closeChildEnds() {
        Descriptor.close(eventsRead)
        Descriptor.close(requestsWrite)
    }

    /// Closes the supervisor's ends, once the child is gone.
    public func closeSupervisorEnds() {
        Descriptor.close(eventsWrite)
        Descriptor.close(requestsRead)
    }

    /// A close-on-exec pipe (made so atomically, with `pipe2`) whose `supervisorEnd` is non-blocking.
    private static func makePipe(
        nonBlocking supervisorEnd: KeyPath<(readEnd: Int32, writeEnd: Int32), Int32>
    ) throws(SupervisorError) -> (readEnd: Int32, writeEnd: Int32) {
        let ends: (readEnd: Int32, writeEnd: Int32)
        switch Descriptor.pipe() {
        case .success(let made): ends = made
        case .failure(let error): throw failure("create a protocol pipe", error)
        }
        if case .failure(let error) = Descriptor.setNonBlocking(ends[keyPath: supervisorEnd]) {
            Descriptor.close(ends.readEnd)
            Descriptor.close(ends.writeEnd)
            throw failure("make a protocol pipe non-blocking", error)
        }
        return ends
    }

    private static func failure(_ action: String, _ error: Errno) -> SupervisorError {
        SupervisorError(
            .system,
            "cannot \(action): \(error.sentenceText); "
                + "raise the open-files limit (ulimit -n) or run fewer children",
            errno: error.rawValue)
    }
}
