import Testing
@testable import SuperviseShell
@testable import SuperviseReport

/// Scheduled tasks in the picture: a bar on the child's lane from the start of the entry made
/// for the task, named by its kind and outcome.
@Suite(.timeLimit(.minutes(5))) struct ScheduledTaskPictureTests {
    @Test func aScheduledTaskIsABarWithItsKindAndOutcome() throws {
        guard case .object(var members) = HtmlReportTests.child(timeline: [
            HtmlReportTests.entry(1, "state", "suspended"), HtmlReportTests.entry(900, "event", "task sync refresh 30000"),
            HtmlReportTests.entry(900, "state", "background"), HtmlReportTests.entry(1300, "state", "suspended"),
        ]) else { Issue.record("the child is an object"); return }
        members.append(("scheduled_tasks", .array([.object([
            ("id", .string("sync")), ("kind", .string("refresh")), ("requested_ms", .double(1)),
            ("started_ms", .double(900)), ("limit_ms", .int(30000)), ("expired_ms", .null),
            ("ended_ms", .double(1250)), ("outcome", .string("success")),
        ])])))
        let page = try HtmlReport.page(for: HtmlReportTests.report([.object(members)]))
        #expect(page.contains(">sync scheduled refresh: success</text>"))
        #expect(page.contains("task sync (scheduled refresh: success): begun 900 ms, ended 1.25 s (350 ms)"))
    }
}
