import SuperviseClient
import SuperviseProtocol
import Testing
import SuperviseTestSupport

@Suite(.serialized, .timeLimit(.minutes(5))) struct BackgroundTaskSchedulerTests {
    private func connect(_ supervisor: FakeSupervisor) -> SuperviseApplication {
        let application = SuperviseApplication(
            eventsFD: supervisor.clientEventsFD, requestsFD: supervisor.clientRequestsFD)
        #expect(supervisor.nextRequest() == "hello 1")
        return application
    }

    @Test func submitAndCancelWriteTheirRequests() throws {
        let supervisor = FakeSupervisor()
        let scheduler = connect(supervisor).taskScheduler
        #expect(scheduler.register(forTaskWithIdentifier: "refresh") { _ in })
        #expect(scheduler.register(forTaskWithIdentifier: "com.example.db-cleanup") { _ in })
        try scheduler.submit(AppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: .seconds(900)))
        var cleanup = ProcessingTaskRequest(identifier: "com.example.db-cleanup")
        cleanup.requiresExternalPower = true
        cleanup.requiresNetworkConnectivity = true
        cleanup.requiresIdle = true
        try scheduler.submit(cleanup)
        try scheduler.submit(ProcessingTaskRequest(identifier: "com.example.db-cleanup", earliestBeginDate: .milliseconds(1)))
        scheduler.cancel(taskRequestWithIdentifier: "refresh")
        #expect(supervisor.remainingRequests() == [
            "schedule refresh refresh earliest=900000ms",
            "schedule com.example.db-cleanup processing requires=idle,power,network",
            "schedule com.example.db-cleanup processing earliest=1ms",
            "cancel refresh",
        ])
        supervisor.hangUp()
    }

    @Test func onlyValidIdentifiersRegisterAndOnlyRegisteredOnesSubmit() {
        let supervisor = FakeSupervisor()
        let scheduler = connect(supervisor).taskScheduler
        #expect(!scheduler.register(forTaskWithIdentifier: "a/b") { _ in })
        #expect(!scheduler.register(forTaskWithIdentifier: "") { _ in })
        #expect(!scheduler.register(forTaskWithIdentifier: "42") { _ in }, "digits name begin's assertions")
        #expect(scheduler.register(forTaskWithIdentifier: "sync") { _ in })
        #expect(!scheduler.register(forTaskWithIdentifier: "sync") { _ in }, "registered already")
        #expect(throws: BackgroundTaskScheduler.Error.notPermitted) {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "other"))
        }
        #expect(throws: BackgroundTaskScheduler.Error.notPermitted) {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "a/b"))
        }
        #expect(supervisor.remainingRequests() == [])
        supervisor.hangUp()
    }

    @Test func aTaskRunsItsLaunchHandlerAndTheEntryIsDoneAfterIt() {
        let supervisor = FakeSupervisor()
        let scheduler = connect(supervisor).taskScheduler
        let log = Recorder()
        scheduler.register(forTaskWithIdentifier: "sync") { task in
            log.record("\(task.identifier) \(task.kind) \(task.limit)")
            task.setTaskCompleted(success: true)
            task.setTaskCompleted(success: false)
        }
        supervisor.send("did-enter-background 2 5000 30000\ntask sync processing 20000\n")
        #expect(supervisor.remainingRequests() == ["task-completed sync success", "done 2"])
        #expect(log.all == ["sync processing 20.0 seconds"])
        supervisor.hangUp()
    }

    @Test func expireCallsTheTasksExpirationHandlerOnce() {
        let supervisor = FakeSupervisor()
        let scheduler = connect(supervisor).taskScheduler
        let log = Recorder()
        scheduler.register(forTaskWithIdentifier: "sync") { task in
            task.expirationHandler = {
                log.record("expired")
                task.setTaskCompleted(success: false)
            }
        }
        supervisor.send("did-enter-background 1 5000 30000\ntask sync refresh 30000\n")
        #expect(supervisor.nextRequest() == "done 1")
        supervisor.send("expire sync\nexpire sync\n")
        #expect(supervisor.remainingRequests() == ["task-completed sync failure"])
        #expect(log.all == ["expired"])
        supervisor.hangUp()
    }

    @Test func aTaskWithoutALaunchHandlerFailsAtOnce() {
        let supervisor = FakeSupervisor()
        _ = connect(supervisor)
        supervisor.send("did-enter-background 3 5000 30000\ntask unknown refresh 30000\n")
        #expect(supervisor.remainingRequests() == ["task-completed unknown failure", "done 3"])
        supervisor.hangUp()
    }

    @Test func aVanishedSupervisorExpiresRunningTasksAndRefusesSubmissions() {
        let supervisor = FakeSupervisor()
        let application = connect(supervisor)
        let scheduler = application.taskScheduler
        let log = Recorder()
        scheduler.register(forTaskWithIdentifier: "sync") { task in
            task.expirationHandler = { log.record("expired") }
        }
        supervisor.send("did-enter-background 1 5000 30000\ntask sync refresh 30000\n")
        #expect(supervisor.nextRequest() == "done 1")
        supervisor.hangUp()
        #expect(log.wait(for: 1) == ["expired"])
        #expect(eventually { !application.isConnected })
        #expect(throws: BackgroundTaskScheduler.Error.unavailable) {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "sync"))
        }
    }

    @Test func withoutASupervisorNothingCanBeSubmitted() {
        let scheduler = SuperviseApplication(delegate: nil).taskScheduler
        #expect(scheduler.register(forTaskWithIdentifier: "sync") { _ in })
        #expect(throws: BackgroundTaskScheduler.Error.unavailable) {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "sync"))
        }
    }
}
