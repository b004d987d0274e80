import SuperviseProtocol
@testable import SuperviseLifecycle

/// Drives one ``ChildLifecycle`` on a virtual clock, as the event loop would.
struct LifecycleHarness: VirtualClockHarness {
    var machine: ChildLifecycle
    var now = Instant.zero
    var log: [LifecycleAction] = []

    init(freezerNotifies: Bool = false, start: RunStart = .configured,
         _ configure: (inout LifecycleSettings) -> Void = { _ in }) {
        var settings = LifecycleSettings()
        configure(&settings)
        machine = ChildLifecycle(settings: settings, freezerNotifies: freezerNotifies, start: start)
    }

    var state: ChildState { machine.state }

    mutating func decide(_ input: LifecycleInput) -> [LifecycleAction] { machine.handle(input, at: now) }

    mutating func advance(to seconds: Double) {
        let target = Instant(nanoseconds: Int64(seconds * 1e9))
        while let deadline = machine.nextDeadline, deadline <= target {
            now = max(now, deadline)
            handle(.tick)
        }
        now = max(now, target)
    }

    /// Moves the clock by `seconds` without a tick on the way, as when the supervisor was not
    /// running: whatever fell due meanwhile is due at once.
    mutating func sleep(by seconds: Double) {
        now = now + .nanoseconds(Int64(seconds * 1e9))
    }

    // MARK: Reaching each state

    /// Launched in the foreground, `hello` sent when `aware`.
    static func active(aware: Bool = true, _ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = Self(configure)
        harness.handle(.launched)
        if aware { harness.request(.hello) }
        harness.take()
        return harness
    }

    /// Moved to the background, window running.
    static func background(aware: Bool = true, _ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = active(aware: aware, configure)
        harness.handle(.background)
        harness.take()
        return harness
    }

    /// `done` received: freeze requested, not verified.
    static func suspending(_ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = background(configure)
        harness.request(.done(seq: 1))
        harness.take()
        return harness
    }

    static func suspended(_ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = suspending(configure)
        harness.handle(.freezeVerified)
        harness.take()
        return harness
    }

    static func terminating(_ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = active(configure)
        harness.handle(.terminate(escalate: false))
        harness.take()
        return harness
    }

    static func exited(_ configure: (inout LifecycleSettings) -> Void = { _ in }) -> Self {
        var harness = active(configure)
        harness.handle(.exited(.exited(0), treeEmpty: true))
        harness.take()
        return harness
    }

    /// Every state of the contract's table, by name.
    static func inState(_ state: ChildState) -> Self {
        switch state {
        case .active: return active()
        case .background: return background()
        case .suspending: return suspending()
        case .suspended: return suspended()
        case .terminating: return terminating()
        case .exited: return exited()
        case .launching: return Self()
        case .notRunning: return Self(start: .notStarted)
        }
    }
}

func id(_ text: String) -> TaskID { TaskID(text)! }

extension Array where Element == LifecycleAction {
    var refusals: [String] {
        compactMap { if case .refuse(let reason) = $0 { reason } else { nil } }
    }
}
