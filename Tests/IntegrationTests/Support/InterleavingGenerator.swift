import Foundation
import SuperviseTestSupport

/// One thing a random interleaving does to the supervisor or its child.
enum InterleavingAction: CustomStringConvertible {
    /// A line on the supervisor's standard input.
    case command(String)
    /// A signal to the supervisor (SIGUSR1 background, SIGUSR2 foreground).
    case signal(Int32)
    /// An order to the worker through its FIFO: a request to make, or how to answer.
    case order(String)
    /// SIGKILL to one beater of the tree: `main` is the child's main process.
    case kill(String)
    /// `wait STATE timeout=…`, checked by the `status` after it.
    case wait(String, Double)

    var description: String {
        switch self {
        case .command(let line): return line
        case .signal(let signal): return signal == SIGUSR1 ? "SIGUSR1" : signal == SIGUSR2 ? "SIGUSR2" : "signal \(signal)"
        case .order(let order): return "worker: \(order)"
        case .kill(let beater): return "SIGKILL \(beater)"
        case .wait(let state, let timeout): return "wait \(state) timeout=\(TruthMonitor.seconds(timeout))"
        }
    }
}

/// The timing options of one interleaving's supervisor.
struct InterleavingTiming {
    var window: Double
    var limit = 1.5
    var expiryWarning = 0.5
    var grace = 2.0
    /// `--on-window-overrun suspend` instead of `kill`.
    var overrunSuspends: Bool

    var arguments: [String] {
        ["--window", TruthMonitor.seconds(window), "--limit", TruthMonitor.seconds(limit),
         "--expiry-warning", TruthMonitor.seconds(expiryWarning), "--grace", TruthMonitor.seconds(grace),
         "--on-window-overrun", overrunSuspends ? "suspend" : "kill"]
    }
}

/// Random steps from a seed: commands, signals, child requests and deaths, and sleeps that end on and
/// around the window and expiry deadlines. Each step is a burst done at once, then checked.
struct InterleavingGenerator {
    private var random: SeededGenerator
    let timing: InterleavingTiming
    /// Whether the worker says hello (aware) or is suspended when its window passes (unaware).
    let aware: Bool
    /// Once the main process is killed nothing more is generated.
    private(set) var finished = false
    private var inBackground = false
    private var nextTask = 1
    private var begun: [String] = []

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        timing = InterleavingTiming(window: [0.2, 0.25, 0.3, 0.5].randomElement(using: &random)!,
                                    overrunSuspends: Bool.random(using: &random))
        aware = Bool.random(using: &random)
    }

    /// The next burst of actions.
    mutating func step() -> [InterleavingAction] {
        let roll = Double.random(in: 0..<1, using: &random)
        if roll < 0.2 { return [waitAction()] }
        if roll < 0.5 { return deadlineProbe() }
        var burst: [InterleavingAction] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) where !finished { burst.append(single()) }
        return burst
    }

    /// A move into the background, a sleep ending near one of its deadlines, and a command landing there.
    private mutating func deadlineProbe() -> [InterleavingAction] {
        let entry = pick([(5, InterleavingAction.command("background")), (2, .signal(SIGUSR1)), (3, .command(event()))])
        let follow = pick([(5, InterleavingAction.command("foreground")), (3, .command(event())),
                           (2, .command("background")), (1, .signal(SIGUSR2))])
        inBackground = true
        note(follow)
        return [entry, .command("sleep \(TruthMonitor.seconds(nearDeadline()))"), follow]
    }

    private mutating func single() -> InterleavingAction {
        var choices: [(Int, InterleavingAction)] = [
            (12, .command("background")), (4, .signal(SIGUSR1)), (10, .command("foreground")), (4, .signal(SIGUSR2)),
            (8, .command(event())), (8, .command("sleep \(TruthMonitor.seconds(nearDeadline()))")),
            (1, .kill("one")), (1, .kill("escaped")), (1, .kill("main")),
        ]
        if aware {
            choices += [(5, .order("mode " + ["done", "task", "none"].randomElement(using: &random)!)),
                        (1, .order("expire hold")), (2, .order("expire end")), (4, .order("say begin t\(nextTask) work")),
                        (3, .order("say done"))]
            if let task = begun.randomElement(using: &random) { choices.append((4, .order("say end \(task)"))) }
        }
        let action = pick(choices)
        note(action)
        return action
    }

    /// A wait for the state the last move leads to (generous timeout), or now and then for another (short).
    private mutating func waitAction() -> InterleavingAction {
        if Double.random(in: 0..<1, using: &random) < 0.8 {
            let state = inBackground ? (Bool.random(using: &random) ? "suspended" : "background") : "active"
            return .wait(state, timing.limit + 2.5)
        }
        return .wait(["active", "background", "suspended"].randomElement(using: &random)!, 0.3)
    }

    /// The window, the expiry warning or a short pause, give or take a few milliseconds.
    private mutating func nearDeadline() -> Double {
        let base = pick([(6, timing.window), (2, timing.limit - timing.expiryWarning), (2, 0.0), (1, 0.05)])
        let offset = [0, 0, 0, -0.001, 0.001, -0.003, 0.003, -0.01, 0.01, 0.02].randomElement(using: &random)!
        return max(0, base + offset)
    }

    private mutating func event() -> String {
        "event truth poke \(Int.random(in: 1...999, using: &random))"
    }

    /// Follows what an action does to the model: where the child is headed, tasks begun, the end.
    private mutating func note(_ action: InterleavingAction) {
        switch action {
        case .command(let line) where line == "background" || line.hasPrefix("event "): inBackground = true
        case .signal(SIGUSR1): inBackground = true
        case .command("foreground"), .signal(SIGUSR2): inBackground = false
        case .order(let order) where order.hasPrefix("say begin "):
            begun.append("t\(nextTask)")
            nextTask += 1
        case .kill("main"): finished = true
        default: break
        }
    }

    private mutating func pick<T>(_ weighted: [(Int, T)]) -> T {
        var roll = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.0 }, using: &random)
        for (weight, value) in weighted {
            if roll < weight { return value }
            roll -= weight
        }
        return weighted[weighted.count - 1].1
    }
}
