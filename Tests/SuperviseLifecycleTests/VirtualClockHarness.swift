import SuperviseProtocol
@testable import SuperviseLifecycle

/// What the pure-core harnesses share: a machine driven on a virtual clock as the shell would,
/// every action it returns logged. ``LifecycleHarness`` drives one run (``ChildLifecycle``),
/// ``ScheduleHarness`` the child over its runs with its scheduled tasks (``ChildCore``).
protocol VirtualClockHarness {
    var now: Instant { get set }
    /// Every action since the last `take()`.
    var log: [LifecycleAction] { get set }
    /// The machine's actions for `input` at `now`.
    mutating func decide(_ input: LifecycleInput) -> [LifecycleAction]
    /// Moves the clock to `seconds` after the start, ticking at every deadline on the way.
    mutating func advance(to seconds: Double)
}

extension VirtualClockHarness {
    @discardableResult
    mutating func handle(_ input: LifecycleInput) -> [LifecycleAction] {
        let actions = decide(input)
        log += actions
        return actions
    }

    @discardableResult
    mutating func request(_ request: Request) -> [LifecycleAction] { handle(.request(request)) }

    mutating func advance(by seconds: Double) { advance(to: Double(now.nanoseconds) / 1e9 + seconds) }

    /// Returns and forgets the actions logged so far.
    @discardableResult
    mutating func take() -> [LifecycleAction] {
        defer { log.removeAll() }
        return log
    }

    /// The events sent since the last `take()`, without forgetting them.
    var sent: [Event] { log.compactMap { if case .send(let event) = $0 { event } else { nil } } }
}
