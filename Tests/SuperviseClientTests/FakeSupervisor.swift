import Glibc
import Synchronization
import Testing
import SuperviseTestSupport

/// The supervisor's side of a client's two pipes.
final class FakeSupervisor {
    /// The ends the client gets.
    let clientEventsFD: Int32
    let clientRequestsFD: Int32
    private var eventsWriteFD: Int32
    private let requestsReadFD: Int32
    private var pending: [UInt8] = []

    init() {
        var events: [Int32] = [0, 0]
        var requests: [Int32] = [0, 0]
        precondition(pipe(&events) == 0 && pipe(&requests) == 0, "pipe: \(errno)")
        clientEventsFD = events[0]
        eventsWriteFD = events[1]
        requestsReadFD = requests[0]
        clientRequestsFD = requests[1]
    }

    deinit {
        if eventsWriteFD >= 0 { close(eventsWriteFD) }
        close(requestsReadFD)
    }

    /// Writes `text` to the events pipe in one write.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(eventsWriteFD, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "write: \(errno)")
    }

    /// Closes the events pipe: the client reads end of file.
    func hangUp() {
        close(eventsWriteFD)
        eventsWriteFD = -1
    }

    /// Closes the reading end of the requests pipe: the client's writes fail with EPIPE.
    func stopReadingRequests() {
        close(requestsReadFD)
    }

    /// The next request line, or `nil` if none arrives within `timeout` seconds.
    func nextRequest(timeout: Double = 5) -> String? {
        let deadline = now() + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - now()
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: requestsReadFD, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(requestsReadFD, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }

    /// The requests written so far and within `quiet` seconds after.
    func remainingRequests(quiet: Double = 0.2) -> [String] {
        var lines: [String] = []
        while let line = nextRequest(timeout: quiet) { lines.append(line) }
        return lines
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// A thread-safe log of what callbacks saw.
final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var all: [String] { entries.withLock { $0 } }

    /// Waits until `count` entries are recorded; returns them.
    func wait(for count: Int, timeout: Double = 5) -> [String] {
        // The entries are the answer, a timeout included: callers compare them with those they expect.
        _ = eventually(timeout: timeout) { all.count >= count }
        return all
    }
}
