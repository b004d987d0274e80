/// What a service manager is told about the run (systemd's `sd_notify` assignments), decided from
/// the children's statuses: `READY=1` once every started child has left `launching`, `STATUS=` as
/// their states change, and `STOPPING=1` with `EXTEND_TIMEOUT_USEC=` once the supervisor itself
/// stops (every child terminating, or without a process and none to come). Each assignment is said once; the shell
/// sends each message as one datagram.
public struct ServiceNotifier: Sendable {
    /// One child as the notifier sees it.
    public struct Child: Sendable {
        public let name: String
        public let status: ChildStatus
        /// Its termination's grace (`LifecycleSettings.grace`).
        public let grace: Duration
        /// A run of it may still begin: a restart is pending, or an event can still launch it.
        public let mayRunAgain: Bool

        public init(name: String, status: ChildStatus, grace: Duration, mayRunAgain: Bool) {
            self.name = name
            self.status = status
            self.grace = grace
            self.mayRunAgain = mayRunAgain
        }
    }

    /// Time added to the stop's graces for the kill, the clean-up and the report.
    public static let stopMargin: Duration = .seconds(5)

    private var saidReady = false
    private var saidStopping = false
    private var lastStatus: String?

    public init() {}

    /// The assignments to send now that the children are as `children` says, one a line; `nil`
    /// when there is nothing new to say.
    public mutating func message(for children: [Child]) -> String? {
        guard !children.isEmpty else { return nil }
        var lines: [String] = []
        if !saidReady, children.allSatisfy({ $0.status.state != .launching }) {
            saidReady = true
            lines.append("READY=1")
        }
        let status = Self.statusText(children)
        if status != lastStatus {
            lastStatus = status
            lines.append("STATUS=\(status)")
        }
        if !saidStopping, children.allSatisfy(Self.isStopping) {
            saidStopping = true
            lines.append("STOPPING=1")
            lines.append("EXTEND_TIMEOUT_USEC=\(Self.stopTimeout(children).nanoseconds / 1000)")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Terminating, or exited or not running with no run to come.
    private static func isStopping(_ child: Child) -> Bool {
        switch child.status.state {
        case .terminating: true
        case .exited, .notRunning: !child.mayRunAgain
        default: false
        }
    }

    /// How long the stop may take: twice the longest grace (a child's own, then the grace of the
    /// processes it may leave behind) and ``stopMargin``.
    static func stopTimeout(_ children: [Child]) -> Duration {
        let grace = children.map(\.grace).max() ?? .zero
        return grace * 2 + stopMargin
    }

    /// `worker: active` for one child; for several, how many are in each state, in the states' order:
    /// `3 children: 2 active, 1 suspended`.
    static func statusText(_ children: [Child]) -> String {
        if children.count == 1, let child = children.first { return "\(child.name): \(child.status.state.rawValue)" }
        let counts = ChildState.allCases.compactMap { state -> String? in
            let count = children.count { $0.status.state == state }
            return count == 0 ? nil : "\(count) \(state.rawValue)"
        }
        return "\(children.count) children: " + counts.joined(separator: ", ")
    }
}
