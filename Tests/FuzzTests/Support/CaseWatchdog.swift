import Foundation
import Glibc
import Synchronization

/// A time limit on each case of a fuzz run: a case that takes longer than `limit` ends the
/// test process at once (abort), naming the run and the case, so that a spin fails with its
/// seed in the log instead of holding a core for ever (a thread that spins can't be cancelled).
final class CaseWatchdog: Sendable {
    private struct Current {
        var label = ""
        var started: ContinuousClock.Instant?
        var finished = false
    }

    private let current = Mutex(Current())
    private let limit: Duration

    init(limit: Duration) {
        self.limit = limit
        Thread { [self] in watch() }.start()
    }

    /// Runs one case, labelled for the message if it overruns.
    func run<T>(_ label: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
        let text = label()
        current.withLock { $0.label = text; $0.started = .now }
        defer { current.withLock { $0.started = nil } }
        return try body()
    }

    /// Stops watching; the watching thread ends within 50 ms.
    func finish() { current.withLock { $0.finished = true } }

    private func watch() {
        while true {
            usleep(50_000)
            let (finished, overrun): (Bool, String?) = current.withLock { state in
                guard let started = state.started, started.duration(to: .now) > limit else { return (state.finished, nil) }
                return (state.finished, state.label)
            }
            if let overrun {
                print("fuzz: \(overrun) took over \(limit): it spins or is far too slow; replay with its seed")
                fflush(nil)
                abort()
            }
            if finished { return }
        }
    }
}
