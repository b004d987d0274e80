import Foundation
import SuperviseTestSupport

/// `Workers/truth-worker.sh` seen from the test: its beats, its pids, and the FIFO it takes orders from.
final class TruthWorker {
    /// The beating processes: the main one, one in its process group, and one that left it with `setsid`.
    static let beaters = ["main", "one", "escaped"]

    let directory: URL
    private let orders: Int32
    private var identities: [String: ProcessIdentity] = [:]

    init(in directory: URL) throws {
        self.directory = directory
        let fifo = directory.appendingPathComponent("orders").path
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Read-write so that opening never blocks and the worker never sees the end of it.
        orders = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    }

    deinit { close(orders) }

    /// The command line that runs it.
    var command: [String] { [Supervise.worker("truth-worker.sh"), directory.path] }

    /// Sends the worker one order (`mode task`, `say end t3`, …); it obeys before it handles its next event.
    func order(_ line: String) {
        _ = (line + "\n").withCString { write(orders, $0, strlen($0)) }
    }

    /// How many times `beater` has beaten so far.
    func beats(_ beater: String) -> Int {
        var info = stat()
        return stat(directory.appendingPathComponent(beater).path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// The process behind `beater`, once it has written its pid.
    func identity(_ beater: String) -> ProcessIdentity? {
        if let known = identities[beater] { return known }
        guard let text = ProcessInspector.read(directory.appendingPathComponent(beater + ".pid").path),
              let pid = Int32(text), let info = ProcessInspector.snapshot(pid) else { return nil }
        identities[beater] = info.identity
        return info.identity
    }

    /// Whether every beater has started and beaten (within `timeout` seconds).
    func started(timeout: Double = 10) -> Bool {
        eventually(timeout: timeout) { Self.beaters.allSatisfy { identity($0) != nil && beats($0) > 0 } }
    }

    /// The beaters whose process is still alive.
    var living: [String] { Self.beaters.filter { identity($0)?.isAlive == true } }

    /// The beater a pid belongs to, if any.
    func beater(of pid: Int32) -> String? {
        Self.beaters.first { identities[$0]?.pid == pid }
    }
}
