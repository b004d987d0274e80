import Glibc
import SuperviseClient
import SuperviseProtocol
import Synchronization
import Testing
import SuperviseTestSupport

@Suite(.serialized, .timeLimit(.minutes(5))) struct SuperviseApplicationTests {
    private func connect(
        _ supervisor: FakeSupervisor,
        delegate: (any SuperviseApplicationDelegate)? = nil,
        completion: BackgroundEntryCompletion = .automatic
    ) -> SuperviseApplication {
        let application = SuperviseApplication(
            eventsFD: supervisor.clientEventsFD, requestsFD: supervisor.clientRequestsFD,
            delegate: delegate, backgroundEntryCompletion: completion)
        #expect(supervisor.nextRequest() == "hello 1")
        return application
    }

    @Test func saysHelloFirstAndMarksTheChannelsCloseOnExec() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        #expect(application.isSupervised)
        #expect(application.isConnected)
        #expect(fcntl(supervisor.clientEventsFD, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(supervisor.clientRequestsFD, F_GETFD) & FD_CLOEXEC != 0)
        supervisor.hangUp()
    }

    @Test func everyEventReachesTheDelegateInOrder() {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate()
        _ = connect(supervisor, delegate: delegate)
        supervisor.send("""
            did-finish-launching foreground
            did-become-active
            will-resign-active
            did-enter-background 1 5000 30000
            event 1 push new mail
            expire 77
            will-enter-foreground
            error bad-id begin a/b
            will-terminate 2500
            some-future-event 1 2 3

            """)
        let log = delegate.log.wait(for: 17)
        #expect(!eventually(timeout: 0.3) { delegate.log.all.count > 17 }, "an unknown event is ignored")
        #expect(log == [
            "event: did-finish-launching foreground", "didFinishLaunching foreground",
            "event: did-become-active", "didBecomeActive",
            "event: will-resign-active", "willResignActive",
            "event: did-enter-background 1 5000 30000", "didEnterBackground",
            "event: event 1 push new mail", "handleEvent push new mail",
            "event: expire 77",
            "event: will-enter-foreground", "willEnterForeground",
            "event: error bad-id begin a/b", "error bad-id begin a/b",
            "event: will-terminate 2500", "willTerminate 2.5 seconds",
        ])
        supervisor.hangUp()
    }

    @Test func everyEventReachesTheStreamAndTheFirstStreamGetsEarlierEvents() async {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        supervisor.send("did-finish-launching background\ndid-enter-background 1 5000 30000\n")
        #expect(supervisor.nextRequest() == "done 1")
        let stream = application.events()
        supervisor.send("event 1 fetch\nexpire 3\nwill-enter-foreground\ndid-become-active\nerror stale-done done 9\n")
        supervisor.send("will-resign-active\nwill-terminate 100\n")
        supervisor.hangUp()
        var received: [Event] = []
        for await event in stream { received.append(event) }
        #expect(received == [
            .didFinishLaunching(.background),
            .didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000),
            .event(seq: 1, kind: "fetch", text: nil),
            .expire(TaskID("3")!),
            .willEnterForeground,
            .didBecomeActive,
            .error(RequestError(code: .staleDone, request: "done 9")),
            .willResignActive,
            .willTerminate(graceMS: 100),
            .willTerminate(graceMS: 0),
        ])
    }

    @Test func aLaunchAfterAReclaimSaysSoBeforeTheDelegateIsCalled() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        #expect(!application.wasReclaimed)
        supervisor.send("did-finish-launching background reclaimed\ndid-enter-background 1 5000 30000\nevent 1 push\n")
        #expect(supervisor.nextRequest() == "done 1", "one done covers the entry and its event")
        #expect(application.wasReclaimed)
        #expect(application.applicationState == .background)
        supervisor.hangUp()
    }

    @Test func aLateFirstStreamStartsFromNow() async {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate()
        let application = connect(supervisor, delegate: delegate)
        supervisor.send(String(repeating: "did-become-active\n", count: 300))
        #expect(delegate.log.wait(for: 600).count == 600)
        let stream = application.events()
        supervisor.send("will-resign-active\n")
        supervisor.hangUp()
        var received: [Event] = []
        for await event in stream { received.append(event) }
        #expect(received == [.willResignActive, .willTerminate(graceMS: 0)])
    }

    @Test func beginWritesBeginAndEndWritesEndOnce() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let first = application.beginBackgroundTask(withName: "upload photos")
        let second = application.beginBackgroundTask()
        #expect(first != .invalid && second != .invalid && first != second)
        application.endBackgroundTask(first)
        application.endBackgroundTask(first)
        application.endBackgroundTask(.invalid)
        application.endBackgroundTask(second)
        #expect(supervisor.remainingRequests() == [
            "begin \(first.rawValue) upload photos", "begin \(second.rawValue)",
            "end \(first.rawValue)", "end \(second.rawValue)",
        ])
        supervisor.hangUp()
    }

    @Test func refusedBeginCallsTheExpirationHandler() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let log = Recorder()
        let task = application.beginBackgroundTask(withName: "late") { log.record("expired") }
        #expect(supervisor.nextRequest() == "begin \(task.rawValue) late")
        supervisor.send("expire \(task.rawValue)\n")
        #expect(log.wait(for: 1) == ["expired"])
        application.endBackgroundTask(task)
        #expect(supervisor.nextRequest() == "end \(task.rawValue)")
        supervisor.hangUp()
    }

    @Test func expirationHandlerCanBeGivenTheTaskToEnd() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let task = application.beginBackgroundTask(withName: "self-ending") { task in
            application.endBackgroundTask(task)
        }
        #expect(supervisor.nextRequest() == "begin \(task.rawValue) self-ending")
        supervisor.send("expire \(task.rawValue)\n")
        #expect(supervisor.nextRequest() == "end \(task.rawValue)")
        supervisor.hangUp()
    }

    @Test func expireCallsOnlyThatTasksHandlerAndOnlyOnce() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let log = Recorder()
        let first = application.beginBackgroundTask { log.record("first") }
        let second = application.beginBackgroundTask { log.record("second") }
        supervisor.send("expire \(second.rawValue)\nexpire \(second.rawValue)\nexpire 999\n")
        #expect(log.wait(for: 1) == ["second"])
        #expect(!eventually(timeout: 0.3) { log.all.count > 1 })
        _ = first
        supervisor.hangUp()
    }

    @Test func doneIsWrittenAfterTheDelegateReturns() {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate(beginsTaskInBackground: true)
        _ = connect(supervisor, delegate: delegate)
        supervisor.send("will-resign-active\ndid-enter-background 4 5000 30000\n")
        #expect(supervisor.remainingRequests() == ["begin 1 from-handler", "done 4"])
        supervisor.hangUp()
    }

    @Test func oneDoneCoversAnEntryAndItsEvent() {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate(beginsTaskInBackground: true)
        _ = connect(supervisor, delegate: delegate)
        supervisor.send("did-enter-background 2 5000 30000\nevent 2 push hello there\n")
        #expect(supervisor.remainingRequests() == ["begin 1 from-handler", "begin 2 from-event", "done 2"])
        #expect(delegate.log.all.contains("handleEvent push hello there"))
        supervisor.hangUp()
    }

    @Test func doneWithoutADelegateIsWrittenAtOnce() {
        let supervisor = FakeSupervisor()
        _ = connect(supervisor)
        supervisor.send("did-finish-launching background\ndid-enter-background 1 5000 30000\n")
        #expect(supervisor.remainingRequests() == ["done 1"])
        supervisor.hangUp()
    }

    @Test func manualCompletionWritesDoneOnlyWhenAskedAndOnce() {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate()
        let application = connect(supervisor, delegate: delegate, completion: .manual)
        supervisor.send("did-enter-background 3 5000 30000\n")
        #expect(delegate.log.wait(for: 2) == ["event: did-enter-background 3 5000 30000", "didEnterBackground"])
        #expect(supervisor.remainingRequests() == [])
        application.completeBackgroundEntry(3)
        application.completeBackgroundEntry(3)
        application.completeBackgroundEntry(2)
        #expect(supervisor.remainingRequests() == ["done 3"])
        supervisor.hangUp()
    }

    @Test func backgroundTimeRemainingFollowsTheEntries() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        #expect(application.backgroundTimeRemaining == Double.greatestFiniteMagnitude)
        supervisor.send("did-finish-launching foreground\ndid-become-active\n")
        #expect(eventually { application.applicationState == .active })
        #expect(application.backgroundTimeRemaining == Double.greatestFiniteMagnitude)

        supervisor.send("will-resign-active\ndid-enter-background 1 5000 2000\n")
        #expect(eventually { application.applicationState == .background })
        let start = now()
        let first = application.backgroundTimeRemaining
        #expect(first <= 2.0 && first > 1.0)
        usleep(300_000)  // The point: time passes, and the remaining time must shrink by as much.
        let second = application.backgroundTimeRemaining
        #expect(second <= first - 0.29)
        #expect(second >= 2.0 - (now() - start) - 1.0)

        supervisor.send("will-enter-foreground\n")
        #expect(eventually { application.applicationState == .inactive })
        #expect(application.backgroundTimeRemaining == Double.greatestFiniteMagnitude)
        supervisor.hangUp()
    }

    @Test func backgroundTimeRemainingNeverGoesBelowZero() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        supervisor.send("did-enter-background 1 0 0\n")
        #expect(eventually { application.applicationState == .background })
        #expect(application.backgroundTimeRemaining == 0)
        supervisor.hangUp()
    }

    @Test func endOfFileActsAsWillTerminateZero() async {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate()
        let application = connect(supervisor, delegate: delegate)
        let expired = Recorder()
        let task = application.beginBackgroundTask(withName: "long") { expired.record("expired") }
        let stream = application.events()
        supervisor.hangUp()
        var received: [Event] = []
        for await event in stream { received.append(event) }
        #expect(received == [.willTerminate(graceMS: 0)])
        #expect(delegate.log.all == ["event: will-terminate 0", "willTerminate 0.0 seconds"])
        #expect(expired.wait(for: 1) == ["expired"])
        #expect(!application.isConnected)
        #expect(application.beginBackgroundTask() == .invalid)
        application.endBackgroundTask(task)
        #expect(supervisor.remainingRequests() == ["begin \(task.rawValue) long"])
    }

    @Test func aVanishedSupervisorDoesNotKillTheWorker() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        supervisor.stopReadingRequests()
        let task = application.beginBackgroundTask(withName: "into the void")
        application.endBackgroundTask(task)
        #expect(task != .invalid)
        supervisor.hangUp()
        #expect(eventually { !application.isConnected })
    }

    @Test func expiringActivityRunsUnderATaskAndIsToldWhenTimeIsUp() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let log = Recorder()
        let release = Mutex(false)
        application.performExpiringActivity(withReason: "sync") { expired in
            log.record("expired: \(expired)")
            guard !expired else {
                release.withLock { $0 = true }
                return
            }
            log.record(eventually { release.withLock { $0 } } ? "first call returns" : "first call never released")
        }
        #expect(supervisor.nextRequest() == "begin 1 sync")
        #expect(log.wait(for: 1) == ["expired: false"])
        supervisor.send("expire 1\n")
        #expect(log.wait(for: 3) == ["expired: false", "expired: true", "first call returns"])
        #expect(supervisor.nextRequest() == "end 1")
        supervisor.hangUp()
    }

    @Test func expiringActivityThatFinishesInTimeIsNotExpired() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let log = Recorder()
        application.performExpiringActivity(withReason: "quick") { expired in log.record("expired: \(expired)") }
        #expect(supervisor.remainingRequests() == ["begin 1 quick", "end 1"])
        supervisor.send("expire 1\n")
        #expect(!eventually(timeout: 0.3) { log.all.count > 1 })
        #expect(log.all == ["expired: false"])
        supervisor.hangUp()
    }

    @Test func expiringActivityWithoutASupervisorIsExpiredAtOnce() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        supervisor.hangUp()
        #expect(eventually { !application.isConnected })
        let log = Recorder()
        application.performExpiringActivity(withReason: "late") { expired in log.record("expired: \(expired)") }
        #expect(Set(log.wait(for: 2)) == ["expired: false", "expired: true"])
    }

    @Test func applicationStateFollowsTheEvents() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        #expect(application.applicationState == .inactive)
        supervisor.send("did-finish-launching foreground\ndid-become-active\n")
        #expect(eventually { application.applicationState == .active })
        supervisor.send("will-resign-active\n")
        #expect(eventually { application.applicationState == .inactive })
        supervisor.send("did-enter-background 1 5000 30000\n")
        #expect(eventually { application.applicationState == .background })
        supervisor.hangUp()
    }
}
