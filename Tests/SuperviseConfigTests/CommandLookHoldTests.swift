import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle

/// A command naming a child whose look for a change from outside goes on (a large sigstop
/// tree, in slices) waits for it, whatever the time, and runs once no child it names is looked at.
@Suite(.timeLimit(.minutes(5))) struct CommandLookHoldTests {
    private func child(_ name: String, looking: Bool) -> CommandHold.Child {
        CommandHold.Child(name: name, state: .suspended, isDone: false, lookGoesOn: looking)
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

    /// Each command that reads or acts on a child's state names the children it looks at first.
    @Test func theCommandsThatLookFirst() throws {
        let looked = try ["status", "background a", "foreground all", "terminate a", "event a push", "start a",
                          "restart a", "wait suspended a", "run-task a t"].map { try ControlParser.parse($0)?.looksAt }
        #expect(looked == [.all, .named("a"), .all, .named("a"), .named("a"), .named("a"), .named("a"), .named("a"), .named("a")])
        let none = try ["sleep 1s", "signal a TERM", "log-level debug", "version", "schedules"].map { try ControlParser.parse($0)?.looksAt }
        #expect(none.allSatisfy { $0 == nil }, "\(none)")
    }
}
