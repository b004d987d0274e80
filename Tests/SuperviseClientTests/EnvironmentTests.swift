import Glibc
@testable import SuperviseClient
import Testing
import SuperviseTestSupport

/// Taking the channels from the environment; serialized because it changes the environment.
@Suite(.serialized, .timeLimit(.minutes(5))) struct EnvironmentTests {
    private static let variables = [
        "SUPERVISE_PROTOCOL", "SUPERVISE_EVENTS_FD", "SUPERVISE_REQUESTS_FD", "SUPERVISE_NAME", "SUPERVISE_PID",
    ]

    private func setEnvironment(_ supervisor: FakeSupervisor, pid: pid_t) {
        setenv("SUPERVISE_PROTOCOL", "1", 1)
        setenv("SUPERVISE_EVENTS_FD", String(supervisor.clientEventsFD), 1)
        setenv("SUPERVISE_REQUESTS_FD", String(supervisor.clientRequestsFD), 1)
        setenv("SUPERVISE_NAME", "worker-7", 1)
        setenv("SUPERVISE_PID", String(pid), 1)
    }

    private func clearEnvironment() {
        for variable in Self.variables { unsetenv(variable) }
    }

    private func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    @Test func notUnderSuperviseRunsNormally() async {
        clearEnvironment()
        let application = SuperviseApplication()
        #expect(!application.isSupervised)
        #expect(!application.isConnected)
        #expect(application.applicationState == .active)
        #expect(application.backgroundTimeRemaining == Double.greatestFiniteMagnitude)
        let log = Recorder()
        let task = application.beginBackgroundTask(withName: "x") { log.record("expired") }
        #expect(task == .invalid)
        application.endBackgroundTask(task)
        application.completeBackgroundEntry(1)
        application.performExpiringActivity(withReason: "work") { expired in log.record("expired: \(expired)") }
        #expect(log.wait(for: 1) == ["expired: false"])
        #expect(!eventually(timeout: 0.3) { log.all.count > 1 })
        var events = 0
        for await _ in application.events() { events += 1 }
        #expect(events == 0)
    }

    @Test func channelsMeantForAnotherProcessAreNotTaken() {
        let supervisor = FakeSupervisor()
        setEnvironment(supervisor, pid: getpid() + 1)
        defer { clearEnvironment() }
        let application = SuperviseApplication()
        #expect(!application.isSupervised)
        #expect(application.beginBackgroundTask(withName: "x") == .invalid)
        #expect(supervisor.remainingRequests() == [])
        #expect(environment("SUPERVISE_PID") == String(getpid() + 1))
        #expect(environment("SUPERVISE_EVENTS_FD") == String(supervisor.clientEventsFD))
        #expect(fcntl(supervisor.clientEventsFD, F_GETFD) & FD_CLOEXEC == 0)
    }

    /// `supervise -- swift run worker`: the worker is below the child, its descriptors 3 and 4 are not
    /// the channels, and without a word it would run unsupervised.
    @Test func channelsMeantForAnotherProcessAreNamedOnce() {
        let supervisor = FakeSupervisor()
        setEnvironment(supervisor, pid: getpid() + 1)
        defer { clearEnvironment() }
        let said = Recorder()
        let notice = OnceNotice { said.record($0) }
        #expect(SupervisorEnvironment.take(notice: notice) == nil)
        #expect(SupervisorEnvironment.take(notice: notice) == nil)
        #expect(said.all.count == 1, "\(said.all)")
        let line = said.all.first ?? ""
        #expect(line.hasPrefix("SuperviseClient: SUPERVISE_PID is \(getpid() + 1) but this process is \(getpid())"), "\(line)")
        #expect(line.contains("runs unsupervised") && line.contains("swift run"), "\(line)")
    }

    @Test func noNoticeWhenTheChannelsAreThisProcessesOrAbsent() {
        let said = Recorder()
        let notice = OnceNotice { said.record($0) }
        clearEnvironment()
        #expect(SupervisorEnvironment.take(notice: notice) == nil)
        let supervisor = FakeSupervisor()
        setEnvironment(supervisor, pid: getpid())
        defer { clearEnvironment() }
        #expect(SupervisorEnvironment.take(notice: notice) != nil)
        #expect(said.all.isEmpty, "\(said.all)")
    }

    /// The notice's line reaches descriptor 2, whole and ended by a newline.
    @Test func noticeIsWrittenToStandardError() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let savedStandardError = dup(2)
        dup2(ends[1], 2)
        OnceNotice.writeToStandardError("SuperviseClient: a notice")
        dup2(savedStandardError, 2)
        close(savedStandardError)
        close(ends[1])
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = read(ends[0], &bytes, bytes.count)
        close(ends[0])
        #expect(String(decoding: bytes.prefix(max(0, count)), as: UTF8.self) == "SuperviseClient: a notice\n")
    }

    @Test func channelsMeantForThisProcessAreTakenAndHidden() {
        let supervisor = FakeSupervisor()
        setEnvironment(supervisor, pid: getpid())
        defer { clearEnvironment() }
        let application = SuperviseApplication()
        #expect(application.isSupervised)
        #expect(application.name == "worker-7")
        #expect(supervisor.nextRequest() == "hello 1")
        for variable in Self.variables {
            #expect(environment(variable) == nil, "\(variable) should be removed")
        }
        #expect(fcntl(supervisor.clientEventsFD, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(supervisor.clientRequestsFD, F_GETFD) & FD_CLOEXEC != 0)
        let task = application.beginBackgroundTask(withName: "upload")
        #expect(supervisor.nextRequest() == "begin \(task.rawValue) upload")

        let second = SuperviseApplication()
        #expect(!second.isSupervised, "only the first instance takes the channels")
        supervisor.hangUp()
    }

    @Test func anotherProtocolVersionIsNotTaken() {
        let supervisor = FakeSupervisor()
        setEnvironment(supervisor, pid: getpid())
        setenv("SUPERVISE_PROTOCOL", "2", 1)
        defer { clearEnvironment() }
        let application = SuperviseApplication()
        #expect(!application.isSupervised)
        #expect(supervisor.remainingRequests() == [])
    }

    @Test func launchSetsTheDelegateOfTheSharedApplication() {
        clearEnvironment()
        let delegate = RecordingDelegate()
        let launched = SuperviseApplication.launch(delegate: delegate, backgroundEntryCompletion: .manual)
        #expect(launched === SuperviseApplication.shared)
        #expect(SuperviseApplication.shared.delegate as? RecordingDelegate === delegate)
        #expect(SuperviseApplication.shared.backgroundEntryCompletion == .manual)
        #expect(!SuperviseApplication.shared.isSupervised)
    }
}
