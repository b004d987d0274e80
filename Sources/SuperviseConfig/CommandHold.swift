import SuperviseLifecycle

/// What keeps the next stdin command from running (or a control client's answer from going
/// out): a `wait`, a `sleep`, or a look or thaw the command waits for, and when it ends.
public enum CommandHold: Equatable, Sendable {
    /// `wait STATE [NAME|all] [TIMEOUT]`, read on stdin line `line` as `text`.
    case wait(state: ChildState, target: ControlTarget, deadline: Instant, line: Int, text: String)
    /// `sleep DURATION`.
    case sleep(until: Instant)
    /// The command `text` (stdin line `line`, 0 for a client) is not run yet: a look at a
    /// suspended child it names, for a change from outside, or a thaw of one, goes on at the
    /// next turns (a large sigstop tree, in slices). It runs once that work on every child it
    /// names has ended.
    case look(target: ControlTarget, line: Int, text: String)

    /// What one waited-for child looks like when a hold is judged.
    public struct Child: Equatable, Sendable {
        public let name: String
        public let state: ChildState
        /// Nothing more will happen to it by itself: exited or not running, its tree gone, no
        /// restart pending.
        public let isDone: Bool
        /// It was told to terminate: no run of it starts again, so it can only end.
        public let toldToTerminate: Bool
        /// A look at it for a change from outside (``ChildStatus/lookGoesOn``), or its thaw
        /// (``ChildStatus/thawGoesOn``), goes on in slices: commands naming it wait.
        public let slicesGoOn: Bool

        /// A child of the run as the run's rules see it.
        public init(_ child: RunChild) {
            self.init(name: child.name, state: child.status.state, isDone: child.isDone,
                      toldToTerminate: child.status.toldToTerminate,
                      slicesGoOn: child.status.lookGoesOn || child.status.thawGoesOn)
        }

        public init(name: String, state: ChildState, isDone: Bool, toldToTerminate: Bool = false, slicesGoOn: Bool = false) {
            self.name = name
            self.state = state
            self.isDone = isDone
            self.toldToTerminate = toldToTerminate
            self.slicesGoOn = slicesGoOn
        }

        /// Why it can never be in `wanted` while a wait holds, or `nil` while it still may be.
        /// Only a `start` (or an `event`, unless it was told to terminate) launches it again, and
        /// only from another source of commands (`launchable`), never from stdin held by the wait
        /// itself; without one, a child told to terminate has only `terminating` (until it exits)
        /// and `exited` ahead of it, and a done one nothing.
        func whyNever(_ wanted: ChildState, launchable: Bool) -> String? {
            guard state != wanted, !launchable else { return nil }
            let ahead = wanted == .exited || (wanted == .terminating && state != .exited && state != .notRunning)
            if toldToTerminate, !ahead {
                return "\(name) is \(state.rawValue) and was told to terminate: it can't become \(wanted.rawValue)"
            }
            guard isDone else { return nil }
            let standing = state == .notRunning ? "is not-running" : "has exited"
            return "\(name) \(standing) and can't become \(wanted.rawValue) while this wait holds "
                + "(only an event or start launches it)"
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

    /// The instant the hold ends by itself; a look's ends when the look or thaw does.
    public var deadline: Instant? {
        switch self {
        case .wait(_, _, let deadline, _, _): deadline
        case .sleep(let until): until
        case .look: nil
        }
    }

    /// The hold of `text`, a command naming `target`, when a look at one of those children, or
    /// its thaw, goes on: the command waits for it. `nil`: it runs now.
    public static func look(before text: String, naming target: ControlTarget, line: Int,
                            over children: [Child]) -> CommandHold? {
        let hold = CommandHold.look(target: target, line: line, text: text)
        return hold.verdict(over: children, at: .zero) == .holds ? hold : nil
    }

    /// The hold after the supervisor was not running for `gap`: a `wait` judges the children, so
    /// its timeout moves as their deadlines do; a `sleep` judges nothing and keeps its end.
    public func moved(by gap: Duration) -> CommandHold {
        guard case .wait(let state, let target, let deadline, let line, let text) = self else { return self }
        return .wait(state: state, target: target, deadline: deadline + gap, line: line, text: text)
    }

    /// Whether this is a `wait` for the child `name`, or a look at it.
    public func isWaiting(for name: String) -> Bool {
        switch self {
        case .wait(_, .all, _, _, _), .wait(_, .unnamed, _, _, _), .look(.all, _, _), .look(.unnamed, _, _): true
        case .wait(_, .named(let target), _, _, _), .look(.named(let target), _, _): target == name
        case .sleep: false
        }
    }

    /// The children a failed `wait` is about: those it waits for that are not in its state.
    public func culprits(among children: [Child]) -> [String] {
        guard case .wait(let state, _, _, _, _) = self else { return [] }
        return children.filter { isWaiting(for: $0.name) && $0.state != state }.map(\.name)
    }

    /// Judges the hold at `now` over every supervised child: a `wait` is released once all the
    /// children it names are in its state, and fails when its time is up. It fails at once when
    /// one of them can never get there (``Child/whyNever(_:launchable:)``) because no other
    /// source of commands can launch it (`launchable`: a control socket is open and the run is
    /// not ending): told to terminate, or done (exited or not running, no restart pending). A
    /// look is over once no child it names is looked at or thawed; a sleep, at its end.
    public func verdict(over children: [Child], at now: Instant, launchable: Bool = false) -> Verdict {
        let state: ChildState, deadline: Instant
        switch self {
        case .sleep(let until): return now >= until ? .released : .holds
        case .look: return children.contains { isWaiting(for: $0.name) && $0.slicesGoOn } ? .holds : .released
        case .wait(let waited, _, let until, _, _): (state, deadline) = (waited, until)
        }
        let targets = children.filter { isWaiting(for: $0.name) }
        if targets.allSatisfy({ $0.state == state }) { return .released }
        if let never = targets.lazy.compactMap({ $0.whyNever(state, launchable: launchable) }).first {
            return .failed(never)
        }
        guard now >= deadline else { return .holds }
        let late = targets.filter { $0.state != state }.map { "\($0.name) is \($0.state.rawValue)" }
        return .failed("timed out: " + late.joined(separator: ", "))
    }
}
