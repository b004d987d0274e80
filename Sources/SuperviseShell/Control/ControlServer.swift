import SuperviseConfig
import SuperviseSystem

/// The control socket in the event loop: accepts clients, checks who they are, reads each one's
/// command line and keeps it for the supervisor, and writes answers without ever blocking.
///
/// It never calls the supervisor: the supervisor takes the lines read (``takeCommands()``) after
/// each handler, between inputs like every command, and answers through ``send(_:to:)`` and
/// ``finish(_:_:)``; an answer is written as far as the socket takes, the rest when it is
/// writable again.
final class ControlServer {
    /// The most clients connected at once. One more takes the place of the longest-connected
    /// client that has sent no command yet, or else is answered `error busy` and closed.
    static let maxClients = 256

    let listener: ControlListener
    private let loop: EventLoop
    private(set) var clients: [Int32: ControlClient] = [:]
    /// How many connections were accepted: each client's place in that order.
    private var accepted = 0
    /// The command lines read and not yet taken, with their clients, in the order they came.
    private var received: [(client: ControlClient, text: String)] = []

    init(listener: ControlListener, loop: EventLoop) {
        self.listener = listener
        self.loop = loop
        loop.add(listener.fd) { [unowned self] _ in self.acceptAll() }
    }

    /// The command lines read since the last call, with their clients, in the order they came.
    func takeCommands() -> [(client: ControlClient, text: String)] {
        defer { received.removeAll() }
        return received
    }

    /// The clients whose `wait` or `sleep` holds their answer.
    var holdingClients: [ControlClient] { clients.values.filter { $0.hold != nil } }

    /// Listening is paused: accepting failed with no reserve descriptor to take the connection
    /// with, and the connection waiting would wake the loop at once, again and again. Resumed
    /// by ``resumeIfPaused()`` once a reserve descriptor can be had again.
    private var paused = false
    /// The client that holds the listener's reserve descriptor.
    private var onReserve: ControlClient?

    private func acceptAll() {
        while true {
            switch listener.accept() {
            case .none:
                return
            case .failed:
                paused = true
                loop.modify(listener.fd, events: 0)
                return
            case .connection(let fd, let peer, let reserved):
                accepted += 1
                let client = ControlClient(connection: ControlConnection(fd: fd, peer: peer), number: accepted)
                clients[fd] = client
                loop.add(fd) { [unowned self, unowned client] events in self.ready(client, events) }
                if reserved {
                    onReserve = client
                    finish(client, .error(.busy, "the supervisor is out of file descriptors; try again"))
                } else if !listener.serves(peer) {
                    finish(client, .error(.denied, "uid \(peer.uid) may not control this supervisor "
                        + "(its user, root and --socket-group members may)"))
                } else if clients.count > Self.maxClients {
                    makeRoom(for: client)
                }
            }
        }
    }

    /// Over the limit: the longest-connected client that has sent nothing gives way to `client`,
    /// so connections that never send can't lock the others out; with none, `client` is refused.
    private func makeRoom(for client: ControlClient) {
        let silent = clients.values.filter { $0 !== client && $0.text == nil && !$0.connection.isFinished }
        if let oldest = silent.min(by: { $0.number < $1.number }) {
            finish(oldest, .error(.busy, "closed to make room for a newer client: no command came on this connection"))
        } else {
            finish(client, .error(.busy, "over \(Self.maxClients) clients are connected; try again"))
        }
    }

    private func ready(_ client: ControlClient, _ events: UInt32) {
        if events & EventLoop.writable != 0, client.connection.flush() {
            return close(client)
        }
        if events & ~EventLoop.writable != 0 { readable(client) }
    }

    private func readable(_ client: ControlClient) {
        let input = client.connection.read()
        if client.text != nil || client.connection.isFinished {
            // One command a connection: what follows is ignored, and its end closes a held one.
            if input == .closed { close(client) }
            return
        }
        switch input {
        case .incomplete:
            break
        case .closed:
            close(client)
        case .tooLong(let prefix):
            client.text = prefix
            finish(client, .error(.usage, "ignored: the line is over \(ControlConnection.maxLineLength / 1024) KiB"))
        case .line(let text):
            client.text = text
            received.append((client, text))
        }
    }

    /// Queues answer lines for `client`.
    func send(_ lines: String, to client: ControlClient) {
        for line in lines.split(separator: "\n") { client.connection.send(String(line)) }
    }

    /// Queues `outcome` as `client`'s last line and writes what the socket takes; the rest
    /// waits for it to be writable, then the connection closes.
    func finish(_ client: ControlClient, _ outcome: ControlOutcome) {
        client.hold = nil
        client.connection.finish(outcome.line)
        if client.connection.flush() {
            close(client)
        } else {
            loop.modify(client.fd, events: EventLoop.readable | EventLoop.writable)
        }
    }

    private func close(_ client: ControlClient) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        loop.remove(client.fd)
        client.connection.close()
        if client === onReserve {
            onReserve = nil
            listener.restoreReserve()
        }
        resumeIfPaused()
    }

    /// Listens again if listening was paused and a reserve descriptor can be had now. The
    /// supervisor calls it once a turn of its loop: descriptors are freed when something happens
    /// (a run ends, a client goes), and an idle supervisor makes no call.
    func resumeIfPaused() {
        guard paused, onReserve == nil, listener.restoreReserve() else { return }
        paused = false
        loop.modify(listener.fd, events: EventLoop.readable)
    }

    /// At the end of the run: every client still held gets `outcome`, what it was sent is
    /// written as far as the socket takes, and the socket file is removed.
    func closeAll(holding outcome: ControlOutcome) {
        for client in clients.values {
            if client.connection.isFinished {
                client.connection.flush()
            } else {
                client.connection.finish(outcome.line)
                client.connection.flush()
            }
            close(client)
        }
        loop.remove(listener.fd)
        listener.remove()
    }
}
