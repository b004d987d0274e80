import Testing
@testable import SuperviseLifecycle

/// What the service manager is told (`sd_notify`), from the children's statuses alone.
@Suite(.timeLimit(.minutes(5))) struct ServiceNotifierTests {
    func child(_ name: String, _ state: ChildState, restartPending: Bool = false, eventCanLaunch: Bool = false,
               grace: Duration = .seconds(5)) -> ServiceNotifier.Child {
        ServiceNotifier.Child(name: name, status: ChildStatus(state: state, isFinished: state == .exited || state == .notRunning,
                                                              nextDeadline: nil, restartPending: restartPending, toldToTerminate: false),
                              grace: grace, mayRunAgain: restartPending || eventCanLaunch)
    }

    @Test func readyOnceEveryChildHasLeftLaunchingThenStatusOnlyWhenItChanges() {
        var notifier = ServiceNotifier()
        #expect(notifier.message(for: [child("a", .launching), child("b", .active)]) == "STATUS=2 children: 1 launching, 1 active")
        #expect(notifier.message(for: [child("a", .launching), child("b", .active)]) == nil)
        #expect(notifier.message(for: [child("a", .active), child("b", .active)]) == "READY=1\nSTATUS=2 children: 2 active")
        #expect(notifier.message(for: [child("a", .active), child("b", .suspended)]) == "STATUS=2 children: 1 active, 1 suspended")
        #expect(notifier.message(for: [child("a", .launching), child("b", .suspended)]) == "STATUS=2 children: 1 launching, 1 suspended",
                "a restart's launching does not take READY back, nor say it again")
    }

    @Test func aChildLaunchedIntoTheBackgroundIsReady() {
        var notifier = ServiceNotifier()
        #expect(notifier.message(for: [child("worker", .background)]) == "READY=1\nSTATUS=worker: background")
    }

    @Test func terminatingOneOfSeveralIsNoStopButTheLastOneIs() {
        var notifier = ServiceNotifier()
        _ = notifier.message(for: [child("a", .active), child("b", .active)])
        #expect(notifier.message(for: [child("a", .terminating), child("b", .active)]) == "STATUS=2 children: 1 active, 1 terminating")
        #expect(notifier.message(for: [child("a", .exited), child("b", .active)]) == "STATUS=2 children: 1 active, 1 exited")
        #expect(notifier.message(for: [child("a", .exited), child("b", .terminating, grace: .seconds(30))])
                == "STATUS=2 children: 1 terminating, 1 exited\nSTOPPING=1\nEXTEND_TIMEOUT_USEC=65000000")
        #expect(notifier.message(for: [child("a", .exited), child("b", .exited)]) == "STATUS=2 children: 2 exited",
                "STOPPING is said once")
    }

    @Test func aChildWaitingForItsRestartKeepsTheSupervisorRunning() {
        var notifier = ServiceNotifier()
        _ = notifier.message(for: [child("worker", .active)])
        #expect(notifier.message(for: [child("worker", .exited, restartPending: true)]) == "STATUS=worker: exited")
        #expect(notifier.message(for: [child("worker", .exited)]) == "STOPPING=1\nEXTEND_TIMEOUT_USEC=15000000")
    }

    @Test func aChildAnEventCanStillLaunchKeepsTheSupervisorRunning() {
        var notifier = ServiceNotifier()
        #expect(notifier.message(for: [child("parked", .notRunning, eventCanLaunch: true)]) == "READY=1\nSTATUS=parked: not-running",
                "a child never started is not launching")
        #expect(notifier.message(for: [child("parked", .exited, eventCanLaunch: true)]) == "STATUS=parked: exited")
        #expect(notifier.message(for: [child("parked", .notRunning)]) == "STATUS=parked: not-running\nSTOPPING=1\nEXTEND_TIMEOUT_USEC=15000000",
                "once no event can come, the supervisor stops")
    }

    @Test func theStopTimeoutIsTwiceTheLongestGraceAndTheMargin() {
        #expect(ServiceNotifier.stopTimeout([child("a", .terminating, grace: .milliseconds(1500)), child("b", .exited, grace: .zero)])
                == .seconds(3) + ServiceNotifier.stopMargin)
    }

    @Test func noChildrenNothingToSay() {
        var notifier = ServiceNotifier()
        #expect(notifier.message(for: []) == nil)
    }
}
