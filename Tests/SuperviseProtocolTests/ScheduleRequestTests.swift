import SuperviseProtocol
import Testing

/// `schedule`, `cancel`, `task-completed` and the `task` event: parsed, refused, encoded.
@Suite(.timeLimit(.minutes(5))) struct ScheduleRequestTests: RequestParsing {
    private func line(_ request: Request) -> String { request.line }

    @Test func parsesScheduleWithAndWithoutOptions() {
        #expect(parse("schedule sync refresh") == .success(.schedule(ScheduleRequest(id: id("sync"), kind: .refresh))))
        #expect(parse("schedule c processing requires=power,idle earliest=15m")
            == .success(.schedule(ScheduleRequest(id: id("c"), kind: .processing, earliestMS: 900_000,
                                                  requires: [.idle, .power]))))
        #expect(parse("schedule c refresh requires=network,network")
            == .success(.schedule(ScheduleRequest(id: id("c"), kind: .refresh, requires: [.network]))))
    }

    @Test(arguments: [("900", 900_000), ("900s", 900_000), ("900000ms", 900_000), ("15m", 900_000),
                      ("2h", 7_200_000), ("0", 0), ("0ms", 0)] as [(String, Int64)])
    func earliestTakesWholeNumbersWithAUnitOrSeconds(text: String, milliseconds: Int64) {
        #expect(parse("schedule t refresh earliest=\(text)")
            == .success(.schedule(ScheduleRequest(id: id("t"), kind: .refresh, earliestMS: milliseconds))))
    }

    @Test(arguments: ["schedule t", "schedule t later", "schedule t Refresh", "schedule t refresh earliest=",
                      "schedule t refresh earliest=1.5s", "schedule t refresh earliest=-1",
                      "schedule t refresh earliest=1d", "schedule t refresh earliest=9223372036854776s",
                      "schedule t refresh earliest=9223372036854775808ms",
                      "schedule t refresh requires=", "schedule t refresh requires=idle,", "schedule t refresh requires=storage",
                      "schedule t refresh requires=idle requires=power", "schedule t refresh earliest=1 earliest=2",
                      "schedule t refresh soon", "schedule t refresh  earliest=1"])
    func malformedScheduleIsBadSchedule(text: String) {
        #expect(code(text) == .badSchedule, "\(text)")
    }

    @Test func scheduleCancelAndCompletionNeedAValidID() {
        #expect(code("schedule") == .badID)
        #expect(code("schedule bad/id refresh") == .badID)
        #expect(code("cancel") == .badID)
        #expect(code("cancel ") == .badID)
        #expect(code("task-completed") == .badID)
        #expect(code("task-completed a/b success") == .badID)
    }

    @Test func cancelAndCompletion() {
        #expect(parse("cancel sync") == .success(.cancel(id: id("sync"))))
        #expect(parse("cancel sync later") == .success(.cancel(id: id("sync"))))
        #expect(parse("task-completed sync success") == .success(.taskCompleted(id: id("sync"), success: true)))
        #expect(parse("task-completed sync failure extra") == .success(.taskCompleted(id: id("sync"), success: false)))
        #expect(code("task-completed sync") == .badOutcome)
        #expect(code("task-completed sync ok") == .badOutcome)
        #expect(code("task-completed sync Success") == .badOutcome)
    }

    @Test func requestsEncodeAsTheyParse() {
        let schedule = Request.schedule(ScheduleRequest(id: id("s"), kind: .processing, earliestMS: 1500,
                                                        requires: [.network, .idle, .power]))
        #expect(line(schedule) == "schedule s processing earliest=1500ms requires=idle,power,network\n")
        #expect(line(.schedule(ScheduleRequest(id: id("s"), kind: .refresh))) == "schedule s refresh\n")
        #expect(line(.cancel(id: id("s"))) == "cancel s\n")
        #expect(line(.taskCompleted(id: id("s"), success: false)) == "task-completed s failure\n")
        for request in [schedule, .cancel(id: id("s")), .taskCompleted(id: id("s"), success: true)] {
            #expect(RequestParser.parse(Array(request.line.utf8).dropLast()) == .success(request))
        }
    }

    @Test func taskEventEncodesAndDecodes() {
        let event = Event.task(id: id("sync"), kind: .refresh, limitMS: 30_000)
        #expect(event.line == "task sync refresh 30000\n")
        #expect(Event(line: Array("task sync refresh 30000\n".utf8)) == event)
        #expect(Event(line: Array("task sync processing 300000 later".utf8))
            == .task(id: id("sync"), kind: .processing, limitMS: 300_000))
        #expect(Event(line: Array("task sync soon 1".utf8)) == nil)
        #expect(Event(line: Array("task sync refresh".utf8)) == nil)
        #expect(Event(line: Array("task a/b refresh 1".utf8)) == nil)
    }
}
