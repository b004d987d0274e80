import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle

/// When a `wait` or `sleep` on stdin lets the next command run, on a virtual clock.
@Suite(.timeLimit(.minutes(5))) struct CommandHoldTests {
    private let start = Instant(nanoseconds: 1_000_000_000)

    private func wait(_ state: ChildState, _ target: ControlTarget, seconds: Int64 = 10) -> CommandHold {
        .wait(state: state, target: target, deadline: start + .seconds(seconds), line: 3, text: "wait")
    }

    private func child(_ name: String, _ state: ChildState, done: Bool = false) -> CommandHold.Child {
        CommandHold.Child(name: name, state: state, isDone: done)
    }

    @Test func aSleepHoldsUntilItsTimeIsUp() {
        let hold = CommandHold.sleep(until: start + .seconds(2))
        #expect(hold.verdict(over: [], at: start + .seconds(1)) == .holds)
        #expect(hold.verdict(over: [], at: start + .seconds(2)) == .released)
        #expect(hold.deadline == start + .seconds(2))
        #expect(!hold.isWaiting(for: "a"))
    }

    @Test func timeTheSupervisorDidNotRunMovesAWaitButNotASleep() {
        let waiting = wait(.suspended, .all, seconds: 2).moved(by: .seconds(3))
        #expect(waiting.deadline == start + .seconds(5))
        #expect(waiting.verdict(over: [child("a", .background)], at: start + .seconds(4)) == .holds)
        let sleeping = CommandHold.sleep(until: start + .seconds(2))
        #expect(sleeping.moved(by: .seconds(3)) == sleeping)
    }

    @Test func aWaitForAllIsReleasedOnlyOnceEveryChildIsInTheState() {
        let hold = wait(.suspended, .all)
        #expect(hold.verdict(over: [child("a", .suspended), child("b", .suspending)], at: start) == .holds)
        #expect(hold.verdict(over: [child("a", .suspended), child("b", .suspended)], at: start) == .released)
    }

    @Test func aWaitForOneChildLooksAtThatChildOnly() {
        let hold = wait(.active, .named("b"))
        #expect(hold.isWaiting(for: "b") && !hold.isWaiting(for: "a"))
        #expect(hold.verdict(over: [child("a", .suspended), child("b", .active)], at: start) == .released)
        #expect(hold.verdict(over: [child("a", .exited, done: true), child("b", .background)], at: start) == .holds)
    }

    @Test func aWaitFailsAtOnceForAChildThatCanNoLongerGetThere() {
        let hold = wait(.active, .unnamed)
        #expect(hold.verdict(over: [child("w", .exited, done: true)], at: start)
                == .failed("w has exited and can't become active while this wait holds (only an event or start launches it)"))
        #expect(hold.verdict(over: [child("w", .exited, done: false)], at: start) == .holds, "a restart may come")
        #expect(hold.verdict(over: [child("w", .notRunning, done: true)], at: start)
                == .failed("w is not-running and can't become active while this wait holds (only an event or start launches it)"))
        #expect(wait(.notRunning, .unnamed).verdict(over: [child("w", .notRunning, done: true)], at: start) == .released)
    }

    /// A child told to terminate has only `terminating` and `exited` ahead of it unless another
    /// source `start`s it: a wait for another state fails at once instead of holding until it exits.
    @Test func aWaitFailsAtOnceForAChildToldToTerminate() {
        let terminating = [CommandHold.Child(name: "w", state: .terminating, isDone: false, toldToTerminate: true)]
        #expect(wait(.suspended, .unnamed).verdict(over: terminating, at: start)
                == .failed("w is terminating and was told to terminate: it can't become suspended"))
        #expect(wait(.exited, .unnamed).verdict(over: terminating, at: start) == .holds)
        #expect(wait(.suspended, .unnamed).verdict(over: terminating, at: start, launchable: true) == .holds,
                "a start through the control socket launches it again once it has exited")
        let exited = [CommandHold.Child(name: "w", state: .exited, isDone: false, toldToTerminate: true)]
        #expect(wait(.terminating, .unnamed).verdict(over: exited, at: start)
                == .failed("w is exited and was told to terminate: it can't become terminating"))
        let killedForAViolation = [CommandHold.Child(name: "w", state: .terminating, isDone: false)]
        #expect(wait(.active, .unnamed).verdict(over: killedForAViolation, at: start) == .holds, "a restart may come")
    }

    /// With a control socket open, another client can `start` or send an `event` meanwhile.
    @Test func aWaitOnADoneChildHoldsUntilItsTimeWhenOthersCanLaunchIt() {
        let hold = wait(.active, .unnamed, seconds: 5)
        let done = [child("w", .exited, done: true)]
        #expect(hold.verdict(over: done, at: start, launchable: true) == .holds)
        #expect(hold.verdict(over: [child("w", .active)], at: start, launchable: true) == .released)
        #expect(hold.verdict(over: done, at: start + .seconds(5), launchable: true) == .failed("timed out: w is exited"))
    }

    @Test func aWaitFailsWhenItsTimeIsUpNamingTheLateChildren() {
        let hold = wait(.suspended, .all, seconds: 5)
        let children = [child("a", .suspended), child("b", .background), child("c", .active)]
        #expect(hold.verdict(over: children, at: start + .seconds(4)) == .holds)
        #expect(hold.verdict(over: children, at: start + .seconds(5)) == .failed("timed out: b is background, c is active"))
    }

    /// A `wait` sees each child of the run as the run's rules do (``RunChild``).
    @Test func aWaitSeesAChildAsTheRunsRulesDo() {
        var core = ChildCore(settings: LifecycleSettings(), restart: RestartRules(), freezerNotifies: false)
        _ = core.handle(.launched, at: start)
        _ = core.handle(.terminate(escalate: false), at: start)
        let child = RunChild(name: "w", status: core.status, wrappedUp: false, pid: 7, mainProcessAlive: true,
                             killedForViolation: false)
        #expect(CommandHold.Child(child) == CommandHold.Child(name: "w", state: .terminating, isDone: false, toldToTerminate: true))
    }
}
