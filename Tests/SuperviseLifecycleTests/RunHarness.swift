import SuperviseProtocol
@testable import SuperviseLifecycle

/// Drives a ``RunCore`` and its children's ``ChildCore``s on a virtual clock, carrying out the
/// run's actions as the shell does: a child's input is decided at ``now``, a run its core asks
/// for is launched at once, a reaped child's exit is handed to the run.
struct RunHarness {
    var run: RunCore
    var cores: [ChildCore]
    var now = Instant.zero
    var sources = CommandSources(socketOpen: false, stdinMayRunMore: false)
    /// Each child's resident memory when its freeze was verified, in bytes.
    var frozenMemory: [UInt64]
    /// Each child's `priority`.
    var priorities: [Int]
    private(set) var wrappedUp: [Bool]
    private(set) var pids: [Int32]
    private(set) var reaped: [Bool]
    private var lastPID: Int32 = 100

    init(children count: Int = 2, settings: RunCore.Settings = RunCore.Settings(), restart: RestartRules = RestartRules(),
         autostart: Bool = true, _ configure: (inout LifecycleSettings) -> Void = { _ in }) {
        var lifecycle = LifecycleSettings()
        configure(&lifecycle)
        run = RunCore(settings: settings)
        cores = Array(repeating: ChildCore(settings: lifecycle, restart: restart, freezerNotifies: false, autostart: autostart),
                      count: count)
        wrappedUp = Array(repeating: false, count: count)
        frozenMemory = Array(repeating: 0, count: count)
        priorities = Array(repeating: 0, count: count)
        pids = Array(repeating: 0, count: count)
        reaped = Array(repeating: false, count: count)
        if autostart { for child in cores.indices { launch(child) } }
    }

    /// Each child as the run's rules see it.
    var children: [RunChild] {
        cores.indices.map { RunChild(name: name($0), core: cores[$0], wrappedUp: wrappedUp[$0], pid: pids[$0],
                                     mainProcessAlive: pids[$0] > 0 && !reaped[$0], priority: priorities[$0],
                                     frozenMemory: frozenMemory[$0]) }
    }

    func name(_ child: Int) -> String { "child\(child)" }

    var isEnding: Bool { run.isEnding(children, sources) }
    var isOver: Bool { run.isOver(children, sources) }

    /// Decides `input` and carries out its actions; returns them.
    @discardableResult
    mutating func handle(_ input: RunInput) -> [RunAction] {
        let actions = run.handle(input)
        carryOut(actions)
        return actions
    }

    /// Carries out the actions that reach children, as the shell does.
    mutating func carryOut(_ actions: [RunAction]) {
        for action in actions {
            switch action {
            case .feed(let child, let input): feed(child, input)
            case .feedEveryChild(let input): for child in cores.indices { feed(child, input) }
            case .reclaim(let child, _): feed(child, .reclaim)
            default: break
            }
        }
    }

    /// Hands `input` to `child`'s core at ``now``; launches the run it asks for.
    @discardableResult
    mutating func feed(_ child: Int, _ input: LifecycleInput) -> ChildDecision {
        let decision = cores[child].handle(input, at: now)
        if decision.actions.contains(.startRun) { launch(child) }
        return decision
    }

    /// A run of `child` is spawned.
    mutating func launch(_ child: Int) {
        lastPID += 1
        pids[child] = lastPID
        reaped[child] = false
        wrappedUp[child] = false
        feed(child, .launched)
    }

    /// `child`'s main process is reaped with `termination`, and its exit handed to the run;
    /// `treeEmpty` false when processes it left behind still run.
    mutating func exit(_ child: Int, _ termination: ChildTermination = .exited(0), treeEmpty: Bool = true) {
        reaped[child] = true
        feed(child, .exited(termination, treeEmpty: treeEmpty))
        if let exit = cores[child].lifecycle.exit { handle(.childExited(name: name(child), exit)) }
    }

    /// The shell closes `child`'s finished run.
    mutating func wrapUp(_ child: Int) {
        wrappedUp[child] = true
        feed(child, .runOver)
    }

    /// Exits and wraps up every child, with its status.
    mutating func endEveryChild(_ statuses: [Int32]) {
        for (child, status) in statuses.enumerated() {
            exit(child, .exited(status))
            wrapUp(child)
        }
    }

    /// Moves the clock by `seconds`, ticking every child at each deadline on the way.
    mutating func advance(by seconds: Double) {
        let target = now + .nanoseconds(Int64(seconds * 1e9))
        while let deadline = cores.compactMap(\.status.nextDeadline).min(), deadline <= target {
            now = max(now, deadline)
            for child in cores.indices where (cores[child].status.nextDeadline ?? target + .seconds(1)) <= now {
                feed(child, .tick)
            }
        }
        now = target
    }
}
