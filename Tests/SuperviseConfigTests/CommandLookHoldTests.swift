import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle

/// A command naming a child whose look for a change from outside, or whose thaw, goes on (a
/// large sigstop tree, in slices) waits for it, whatever the time, and runs once no child it
/// names is looked at or thawed.
@Suite(.timeLimit(.minutes(5))) struct CommandLookHoldTests {
    private func child(_ name: String, looking: Bool) -> CommandHold.Child {
        CommandHold.Child(name: name, state: .suspended, isDone: false, slicesGoOn: looking)
    }

    @Test func aCommandNamingALookedAtChildWaitsForItsLook() {
        let children = [child("a", looking: false), child("b", looking: true)]
        let hold = CommandHold.look(before: "status", naming: .all, line: 4, over: children)
        #expect(hold == .look(target: .all, line: 4, text: "status"))
        #expect(hold?.deadline == nil, "a look's hold has no time of its own")
        #expect(hold?.verdict(over: children, at: Instant(nanoseconds: .max)) == .holds)
        let done = [child("a", looking: false), child("b", looking: false)]
        #expect(hold?.verdict(over: done, at: .zero) == .released)
    }

    @Test func aCommandNamingOnlyChildrenNotLookedAtRunsNow() {
        let children = [child("a", looking: false), child("b", looking: true)]
        #expect(CommandHold.look(before: "foreground a", naming: .named("a"), line: 1, over: children) == nil)
        #expect(CommandHold.look(before: "foreground b", naming: .named("b"), line: 1, over: children) != nil)
        #expect(CommandHold.look(before: "status", naming: .all, line: 1, over: [child("a", looking: false)]) == nil)
    }

    @Test func aLookIsAboutTheChildrenItNamesAndMovesWithNoGap() {
        let hold = CommandHold.look(target: .named("b"), line: 2, text: "background b")
        #expect(hold.isWaiting(for: "b") && !hold.isWaiting(for: "a"))
        #expect(hold.moved(by: .seconds(30)) == hold)
        #expect(hold.culprits(among: [child("b", looking: true)]) == [], "a look never fails")
    }

    /// A child of the run whose thaw goes on, as the run's rules see it (``RunChild``), holds a
    /// command naming it; once its thaw is no longer told to go on, the command runs.
    @Test func aCommandNamingAChildWhoseThawGoesOnWaitsForIt() {
        var settings = LifecycleSettings()
        settings.window = .zero
        var core = ChildCore(settings: settings, restart: RestartRules(), freezerNotifies: false)
        _ = core.handle(.launched, at: .zero)
        _ = core.handle(.background, at: .zero)
        _ = core.handle(.freezeVerified, at: .zero)
        #expect(core.handle(.foreground, at: .zero).actions.contains(.thaw))
        _ = core.handle(.thawUnfinished, at: .zero)
        let thawing = RunChild(name: "w", status: core.status, wrappedUp: false, pid: 7, mainProcessAlive: true,
                               killedForViolation: false)
        #expect(thawing.status.state == .active && thawing.status.thawGoesOn)
        let hold = CommandHold.look(before: "status", naming: .all, line: 3, over: [CommandHold.Child(thawing)])
        #expect(hold == .look(target: .all, line: 3, text: "status"))
        #expect(core.handle(.tick, at: .zero).actions == [.continueThaw])
        let thawed = RunChild(name: "w", status: core.status, wrappedUp: false, pid: 7, mainProcessAlive: true,
                              killedForViolation: false)
        #expect(hold?.verdict(over: [CommandHold.Child(thawed)], at: .zero) == .released)
    }

    /// Each command that reads or acts on a child's state names the children it looks at first.
    @Test func theCommandsThatLookFirst() throws {
        let looked = try ["status", "background a", "foreground all", "terminate a", "event a push", "start a",
                          "restart a", "wait suspended a", "run-task a t"].map { try ControlParser.parse($0)?.looksAt }
        #expect(looked == [.all, .named("a"), .all, .named("a"), .named("a"), .named("a"), .named("a"), .named("a"), .named("a")])
        let none = try ["sleep 1s", "signal a TERM", "log-level debug", "version", "schedules"].map { try ControlParser.parse($0)?.looksAt }
        #expect(none.allSatisfy { $0 == nil }, "\(none)")
    }
}
