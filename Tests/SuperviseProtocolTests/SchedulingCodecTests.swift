import SuperviseProtocol
import Testing

/// The scheduled background task lines: `schedule`, `cancel`, `task-completed` and `task`.
@Suite(.timeLimit(.minutes(5))) struct SchedulingCodecTests {
    private func parse(_ text: String) -> Result<Request, RequestError>? {
        RequestParser.parse(Array(text.utf8))
    }

    private func code(_ text: String) -> ProtocolErrorCode? {
        guard case .failure(let error) = parse(text) else { return nil }
        return error.code
    }

    private let sync = TaskID("com.example.sync")!

    @Test func parsesEachSchedulingRequest() {
        #expect(parse("schedule com.example.sync refresh")
            == .success(.schedule(id: sync, kind: .refresh, earliest: nil, requires: [])))
        #expect(parse("schedule com.example.sync processing earliest=900000ms requires=power,network")
            == .success(.schedule(id: sync, kind: .processing, earliest: .seconds(900), requires: ["power", "network"])))
        #expect(parse("schedule com.example.sync processing requires=idle earliest=0ms")
            == .success(.schedule(id: sync, kind: .processing, earliest: .zero, requires: ["idle"])))
        #expect(parse("cancel com.example.sync") == .success(.cancel(id: sync)))
        #expect(parse("task-completed com.example.sync success") == .success(.taskCompleted(id: sync, success: true)))
        #expect(parse("task-completed com.example.sync failure") == .success(.taskCompleted(id: sync, success: false)))
    }

    @Test func conditionNamesAreLeftForTheSupervisorToJudge() {
        #expect(parse("schedule x refresh requires=moon")
            == .success(.schedule(id: TaskID("x")!, kind: .refresh, earliest: nil, requires: ["moon"])))
    }

    @Test func malformedSchedulingRequestsAreRefused() {
        #expect(code("schedule") == .badID)
        #expect(code("schedule a/b refresh") == .badID)
        #expect(code("cancel") == .badID)
        #expect(code("task-completed") == .badID)
        for line in [
            "schedule x", "schedule x later", "schedule x refresh earliest=5", "schedule x refresh earliest=ms",
            "schedule x refresh earliest=-5ms", "schedule x refresh earliest=5s",
            "schedule x refresh earliest=99999999999999999999ms", "schedule x refresh earliest=1ms earliest=2ms",
            "schedule x refresh requires=", "schedule x refresh requires=power,", "schedule x refresh requires=a,,b",
            "schedule x refresh soon", "task-completed x", "task-completed x done",
        ] {
            #expect(code(line) == .unknownRequest, "\(line)")
        }
    }

    @Test func requestsAreWrittenAsParsed() {
        let requests: [Request] = [
            .schedule(id: sync, kind: .refresh, earliest: nil, requires: []),
            .schedule(id: sync, kind: .processing, earliest: .milliseconds(1500), requires: ["idle", "power", "network"]),
            .cancel(id: sync),
            .taskCompleted(id: sync, success: true),
            .taskCompleted(id: sync, success: false),
        ]
        for request in requests {
            #expect(parse(String(request.line.dropLast())) == .success(request))
        }
        #expect(Request.schedule(id: sync, kind: .processing, earliest: .seconds(900), requires: ["power", "network"]).line
            == "schedule com.example.sync processing earliest=900000ms requires=power,network\n")
        #expect(Request.taskCompleted(id: sync, success: false).line == "task-completed com.example.sync failure\n")
    }

    @Test func anEarliestTimeIsNeverBroughtForward() {
        func written(_ earliest: Duration) -> String {
            Request.schedule(id: sync, kind: .refresh, earliest: earliest, requires: []).line
        }
        #expect(written(.microseconds(1)) == "schedule com.example.sync refresh earliest=1ms\n")
        #expect(written(.microseconds(1001)) == "schedule com.example.sync refresh earliest=2ms\n")
        #expect(written(.seconds(-3)) == "schedule com.example.sync refresh earliest=0ms\n")
        #expect(written(.seconds(Int64.max)) == "schedule com.example.sync refresh earliest=\(Int64.max)ms\n")
    }

    @Test func taskEventRoundTrips() {
        let event = Event.task(id: sync, kind: .processing, limitMS: 30000)
        #expect(event.line == "task com.example.sync processing 30000\n")
        #expect(Event(line: Array(event.line.utf8)) == event)
        #expect(Event(line: Array("task x refresh 5 future\n".utf8)) == .task(id: TaskID("x")!, kind: .refresh, limitMS: 5))
        for line in ["task", "task x", "task x refresh", "task x later 5", "task a/b refresh 5", "task x refresh -5"] {
            #expect(Event(line: Array(line.utf8)) == nil, "\(line)")
        }
    }
}
