import SuperviseClient
import SuperviseProtocol
import Testing

/// `memory-warning LEVEL` reaches the delegate as UIKit's `applicationDidReceiveMemoryWarning`,
/// with its level, and changes nothing else.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MemoryWarningClientTests {
    @Test func eachLevelReachesTheDelegateAndTheStateStays() {
        let supervisor = FakeSupervisor()
        let delegate = RecordingDelegate()
        let application = SuperviseApplication(
            eventsFD: supervisor.clientEventsFD, requestsFD: supervisor.clientRequestsFD, delegate: delegate)
        #expect(supervisor.nextRequest() == "hello 1")
        supervisor.send("""
            did-finish-launching foreground
            did-become-active
            memory-warning moderate
            memory-warning critical
            memory-warning severe

            """)
        let log = delegate.log.wait(for: 8)
        #expect(log.suffix(4) == [
            "event: memory-warning moderate", "memoryWarning moderate",
            "event: memory-warning critical", "memoryWarning critical",
        ])
        #expect(application.applicationState == .active, "a warning is not a move")
        supervisor.hangUp()
    }
}
