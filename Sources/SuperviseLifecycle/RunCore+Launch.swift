import SuperviseProtocol

/// Whether a child's first run starts (docs/config.md, `autostart`), and what a child is launched
/// with (docs/protocol.md, the variables of the contract).
extension RunCore {
    /// `child` (at `place`) joined the run: its first run starts at once, unless its core left
    /// it `not-running` (`autostart = false`), for an event or `start` to launch it.
    func joined(_ child: RunChild, at place: Int) -> [RunAction] {
        child.status.state == .notRunning ? [] : [.startFirstRun(child: place)]
    }

    /// The environment of the child `name`: the supervisor's (`inherited`) without the variables
    /// the protocol sets or those the child sets itself, then the child's own (`own`, sorted by
    /// name), then the protocol's. A `NOTIFY_SOCKET` is the supervisor's to answer, never a child's.
    public static func environment(of name: String, own: [String: String], inherited: [String]) -> [String] {
        var variables: [String] = []
        for text in inherited {
            if text.hasPrefix("SUPERVISE_") || text.hasPrefix("NOTIFY_SOCKET=") { continue }
            if let equals = text.firstIndex(of: "="), own[String(text[..<equals])] != nil { continue }
            variables.append(text)
        }
        for (key, value) in own.sorted(by: { $0.key < $1.key }) {
            variables.append("\(key)=\(value)")
        }
        variables.append("SUPERVISE_PROTOCOL=\(protocolVersion)")
        variables.append("SUPERVISE_EVENTS_FD=3")
        variables.append("SUPERVISE_REQUESTS_FD=4")
        variables.append("SUPERVISE_NAME=\(name)")
        return variables
    }
}
