import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseShell

/// The end-of-run summary's wording, and that it fits one screen.
@Suite(.timeLimit(.minutes(5))) struct RunSummaryTextTests {
    func exit(_ termination: ChildTermination, by: ExitCause = .self) -> ExitRecord {
        ExitRecord(termination: termination, by: by, inTime: nil, at: .zero, countedStatus: termination.shellStatus)
    }

    func child(_ name: String, _ termination: ChildTermination = .exited(0), by: ExitCause = .self,
               violations: [Violation] = [], passed: Bool = true) -> RunSummaryText.Child {
        RunSummaryText.Child(name: name, freezer: "cgroup2", summary: ChildSummary(
            state: .exited, lastExit: exit(termination, by: by), runs: 1, backgroundTime: .zero, tasksAsked: 0,
            tasksExpired: 0, violations: violations, freezes: 0, passed: passed))
    }

    @Test func oneChildThatExitedWithZero() {
        let text = RunSummaryText(children: [child("worker")], exitStatus: 0, rule: .allZero).text
        #expect(text == """
            supervise: summary of 1 child
              worker: exited with 0
            supervise: exit status 0: every child ended with status 0 (or was terminated in time)

            """)
    }

    @Test func everyFigureThatIsNotZeroIsShown() {
        var worker = child("worker", .signaled(15), by: .terminate)
        worker.summary.runs = 3
        worker.summary.backgroundTime = .milliseconds(1500)
        worker.summary.tasksAsked = 4
        worker.summary.tasksExpired = 1
        worker.summary.freezes = 2
        let text = RunSummaryText(children: [worker, child("api", .exited(3), passed: false)], exitStatus: 3,
                                  rule: .childStatus(3, child: "api")).text
        #expect(text == """
            supervise: summary of 2 children
              worker: killed by SIGTERM (15) when terminated; 3 runs; 1.5s in the background; tasks: 4, 1 expired; 2 freezes (cgroup2)
              api: exited with 3
            supervise: exit status 3: the first child to exit non-zero, api, exited with 3

            """)
    }

    @Test func aViolationKillNamesItsKindTasksAndChild() {
        let tasks = ["upload", nil, "sync", "index"].enumerated().map { index, name in
            TaskReference(id: TaskID("t\(index)")!, name: name)
        }
        let violations = [Violation(kind: .window, at: .zero, action: .suspended, tasks: []),
                          Violation(kind: .expiry, at: .zero, action: .killed, tasks: tasks)]
        let api = child("api", .signaled(9), by: .violation, violations: violations, passed: false)
        let text = RunSummaryText(children: [api], exitStatus: 124, rule: .violationKill).text
        #expect(text.contains("  api: killed for an expiry violation; violations: window, expiry (upload, t1, sync, +1 more)\n"))
        #expect(text.hasSuffix("supervise: exit status 124: a child was killed for a violation (api)\n"))
    }

    @Test func manyChildrenFitOneScreenWithTheFailedFirst() {
        var children = (0..<940).map { child("ok\($0)") }
        children.insert(child("bad", .exited(1), passed: false), at: 500)
        children.append(child("crashed", .signaled(11), passed: false))
        let lines = RunSummaryText(children: children, exitStatus: 1, rule: .childStatus(1, child: "bad")).text.split(separator: "\n")
        #expect(lines.count == RunSummaryText.screenLines)
        #expect(lines[1] == "  bad: exited with 1")
        #expect(lines[2] == "  crashed: killed by SIGSEGV (11)")
        #expect(lines[3] == "  ok0: exited with 0")
        #expect(lines[lines.count - 2] == "  … and \(942 - (RunSummaryText.screenLines - 3)) more children exited with 0")
    }

    @Test func theChildrenLeftOutAreCountedByHowTheyEnded() {
        let children = (0..<30).map { child("c\($0)", .exited($0 < 25 ? 0 : 2)) }
        var summary = RunSummaryText(children: children, exitStatus: 2, rule: .childStatus(2, child: "c25"))
        summary.maxLines = 5
        let lines = summary.text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[3] == "  … and 28 more children: 23 exited with 0, 5 exited with 2")
    }

    @Test func controlCharactersInANameAreEscaped() {
        let text = RunSummaryText(children: [child("a\u{1B}[2Jb")], exitStatus: 0, rule: .allZero).text
        #expect(!text.contains("\u{1B}"))
    }
}
