import SuperviseConfig
import SuperviseSystem

/// One client of the control socket, from its connection to its outcome line: the command it
/// sent, what holds its answer, and what was refused.
final class ControlClient {
    let connection: ControlConnection
    /// Its place in the order the connections were accepted.
    let number: Int
    /// The command line it sent, once read.
    var text: String?
    /// What keeps its `wait` or `sleep` from answering yet, or its command from running (a look).
    var hold: CommandHold?
    /// What a child's state or name refused, one line each.
    var refusals: [String] = []
    /// Why its command could not be run as written.
    var usageError: String?

    init(connection: ControlConnection, number: Int) {
        self.connection = connection
        self.number = number
    }

    var fd: Int32 { connection.fd }

    /// The outcome of a command that ran to its end (a held one answers when its hold ends).
    var outcome: ControlOutcome {
        if let usageError { return .error(.usage, usageError) }
        if !refusals.isEmpty { return .error(.refused, refusals.joined(separator: "; ")) }
        return .ok
    }
}
