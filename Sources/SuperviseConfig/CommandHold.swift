import SuperviseLifecycle

/// What keeps the next stdin command from running: a `wait` or a `sleep`, and when it ends.
public enum CommandHold: Equatable, Sendable {
    /// `wait STATE [NAME|all] [TIMEOUT]`, read on stdin line `line` as `text`.
    case wait(state: ChildState, target: ControlTarget, deadline: Instant, line: Int, text: String)
    /// `sleep DURATION`.
    case sleep(until: Instant)

    /// What one waited-for child looks like when a hold is judged.
    public struct Child: Equatable, Sendable {
        public let name: String
        public let state: ChildState
        /// Nothing more will happen to it by itself: exited or not running, its tree gone, no
        /// restart pending.
        public let isDone: Bool

        public init(name: String, state: ChildState, isDone: Bool) {
            self.name = name
            self.state = state
            self.isDone = isDone
        }
    }

    /// How a hold stands at an instant.
    public enum Verdict: Equatable, Sendable {
        /// Still in force.
        case holds
        /// Over: the sleep's time is up, or every child waited for is in the state.
        case released
        /// Over, and the `wait` failed (the run's exit status becomes 123): why, in one line.
        case failed(String)
    }

    /// The instant the hold ends by itself.
    public var deadline: Instant {
        switch self {
        case .wait(_, _, let deadline, _, _): deadline
        case .sleep(let until): until
        }
    }

    /// The hold after the supervisor was not running for `gap`: a `wait` judges the children, so
    /// its timeout moves as their deadlines do; a `sleep` judges nothing and keeps its end.
    public func moved(by gap: Duration) -> CommandHold {
        guard case .wait(let state, let target, let deadline, let line, let text) = self else { return self }
        return .wait(state: state, target: target, deadline: deadline + gap, line: line, text: text)
    }

    /// Whether this is a `wait` for the child `name`.
    public func isWaiting(for name: String) -> Bool {
        switch self {
        case .wait(_, .all, _, _, _), .wait(_, .unnamed, _, _, _): true
        case .wait(_, .named(let target), _, _, _): target == name
        case .sleep: false
        }
    }

    /// The children a failed `wait` is about: those it waits for that are not in its state.
    public func culprits(among children: [Child]) -> [String] {
        guard case .wait(let state, _, _, _, _) = self else { return [] }
        return children.filter { isWaiting(for: $0.name) && $0.state != state }.map(\.name)
    }

    /// Judges the hold at `now` over every supervised child: a `wait` is released once all the
    /// children it names are in its state, and fails when its time is up. Unless another source
    /// of commands can still launch a child (`launchable`: a control socket is open and the run
    /// is not ending), it also fails at once when one of them is done (exited or not running,
    /// no restart pending) in another state: only an `event` or `start` launches it again, and
    /// no stdin command runs while the wait holds.
    public func verdict(over children: [Child], at now: Instant, launchable: Bool = false) -> Verdict {
        guard case .wait(let state, _, let deadline, _, _) = self else {
            return now >= deadline ? .released : .holds
        }
        let targets = children.filter { isWaiting(for: $0.name) }
        if targets.allSatisfy({ $0.state == state }) { return .released }
        if !launchable, let stuck = targets.first(where: { $0.isDone && $0.state != state }) {
            let standing = stuck.state == .notRunning ? "is not-running" : "has exited"
            return .failed("\(stuck.name) \(standing) and can't become \(state.rawValue) while this wait holds "
                + "(only an event or start launches it)")
        }
        guard now >= deadline else { return .holds }
        let late = targets.filter { $0.state != state }.map { "\($0.name) is \($0.state.rawValue)" }
        return .failed("timed out: " + late.joined(separator: ", "))
    }
}
