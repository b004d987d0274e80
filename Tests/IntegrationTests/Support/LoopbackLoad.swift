import Foundation
import SuperviseTestSupport

/// Clients that send `GET /` to a server on 127.0.0.1 one after another, each on a thread of
/// its own, until stopped, for at most `requests` each and `seconds` in all: a bounded load to
/// reload a server under. Every answer is kept: a 200's body, or why it failed.
final class LoopbackLoad: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [String] = []
    private var failures: [String] = []
    private var stopped = false
    private var running: Int

    init(port: UInt16, clients: Int = 4, requests: Int = 60, seconds: Double = 30) {
        running = clients
        let deadline = Date(timeIntervalSinceNow: seconds)
        for _ in 0..<clients {
            Thread.detachNewThread { [self] in
                for _ in 0..<requests where Date() < deadline && !isStopped {
                    record(Loopback.httpAnswer(port: port, timeout: 10))
                }
                lock.withLock { running -= 1 }
            }
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func record(_ answer: String?) {
        let parts = answer?.components(separatedBy: "\r\n\r\n")
        lock.withLock {
            if let parts, parts.count == 2, parts[0].hasPrefix("HTTP/1.") && parts[0].contains(" 200 ") {
                bodies.append(parts[1])
            } else {
                failures.append(answer.map { "answered: \($0.prefix(200))" } ?? "no answer")
            }
        }
    }

    /// The bodies of the 200 answers so far, in the order they came.
    var answered: [String] { lock.withLock { bodies } }

    /// Every request that got no 200, with what came instead.
    var failed: [String] { lock.withLock { failures } }

    /// Asks the clients to stop after their request in flight, and waits up to `timeout` s for
    /// them; whether they all did.
    func stop(timeout: Double = 20) -> Bool {
        lock.withLock { stopped = true }
        return eventually(timeout: timeout) { lock.withLock { running == 0 } }
    }
}
