import Testing
@testable import SuperviseShell
@testable import SuperviseReport

/// Times no run writes (a report edited or corrupted: 1.7e308 ms, -1, 2^63) draw a page of the
/// usual size in the usual time: nothing drawn loops over a time range (a report at 1.7e308 ms
/// once made the axis's loop spin for ever, its end being infinite), and nothing drawn per task
/// looks at every record of the lane.
@Suite(.timeLimit(.minutes(5))) struct HostileTimesTests {
    typealias Report = HtmlReportTests

    /// A run of one worker whose every time is `at`.
    static func page(allAt at: Double) throws -> String {
        let child = Report.child(timeline: [
            Report.entry(0, "state", "active"), Report.entry(at, "event", "did-enter-background 1 \(at) \(at)"),
            Report.entry(at, "state", "background"), Report.entry(at, "state", "exited"),
        ], tasks: [.object([("id", .string("t1")), ("begin_ms", .double(at)), ("end_ms", .double(at)),
                            ("expire_ms", .double(at)), ("refused", .bool(false))])],
        violations: [.object([("kind", .string("limit")), ("at_ms", .double(at)), ("action", .string("killed"))])],
        exits: [Report.exit(137, by: "violation", at: at, "killed by SIGKILL (9)")])
        return try HtmlReport.page(for: Report.report([child]))
    }

    @Test(arguments: [1.7e308, .greatestFiniteMagnitude, 9.3e18, -1, 1e300, 0])
    func aHostileTimeDrawsAPageOfTheUsualSize(at: Double) throws {
        let usual = try Self.page(allAt: 2000)
        let page = try Self.page(allAt: at)
        let ticks = page.split(separator: "\n").filter { $0.contains("text-anchor=\"middle\"") }.count
        #expect((1...HtmlReport.maxTicks + 1).contains(ticks), "\(ticks) ticks on the axis")
        // Only the numbers' digits differ: a few hundred bytes at most.
        #expect(page.utf8.count < usual.utf8.count + 4_096, "\(page.utf8.count) bytes, \(usual.utf8.count) for 2 s")
    }

    /// Each of the 2,000 task bars drawn once looked at every violation and every exit (three
    /// times for the exits): 60,000 of each took over a minute. Now each looks them up by binary search.
    @Test func manyViolationsAndExitsAreNotLookedAtPerTask() throws {
        let count = 60_000
        let tasks = (0..<HtmlLane.maxTaskBars).map { index -> JSONValue in
            .object([("id", .string("t1")), ("begin_ms", .double(Double(index))), ("end_ms", .null)])
        }
        let violations = (0..<count).map { index -> JSONValue in
            .object([("kind", .string("limit")), ("at_ms", .double(Double(count - index))), ("action", .string("killed")),
                     ("tasks", .array([.object([("id", .string("t1"))])]))])
        }
        let exits = (0..<count).map { Report.exit(1, by: "self", at: Double(count - $0), "exited with 1") }
        let child = Report.child(timeline: [Report.entry(0, "state", "active")], tasks: tasks, violations: violations,
                                 exits: exits)
        let page = try HtmlReport.page(for: Report.report([child]))
        #expect(page.contains("task t1: begun 1.99 s, never ended; still open at a violation"))
    }

    @Test(arguments: [1.0, 1e3, 1e15, 1e300, .greatestFiniteMagnitude])
    func theAxisStepGivesAtMostItsTicks(end: Double) {
        let step = HtmlReport.tickStep(end: end)
        #expect(step.isFinite && step > 0)
        #expect(end / step <= Double(HtmlReport.maxTicks), "\(end / step) ticks for \(end) ms")
    }
}
