import Foundation
import Testing
import SuperviseTestSupport

/// `--aware`, end to end: a worker that says hello late still takes part in its whole lifecycle,
/// and one that never says it is killed for a launch violation that fails the run, its JUnit case
/// and shows in its picture.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ExpectedAwarenessTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var log: String { temporary.file("events.log") }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The test worker under `--aware` and `options`, with `environment` for it.
    func aware(_ options: [String], stdin: String, _ environment: [String: String]) throws -> SuperviseRun {
        // A generous freeze timeout: on a loaded 2-core VM a freeze can take longer than the default second.
        try Supervise.run(["--aware", "--freeze-timeout", "5"] + options + ["--name", "worker", "--",
                                                                          Supervise.worker("aware-worker.sh")],
                          stdin: stdin, environment: environment.merging(["WORKER_LOG": log]) { $1 })
    }

    /// Without `--aware` this worker's hello comes after its first window and it stays unaware: no
    /// `did-enter-background` read in time, no `will-terminate`, and still exit 0 (issue 23).
    @Test func aHelloThreeSecondsLateStillGetsTheLifecycleAndWaitActiveWaitsForIt() throws {
        let run = try aware(["--launch-timeout", "10", "--window", "2"],
                            stdin: "wait active timeout=20s\nbackground\nwait suspended timeout=20s\nforeground\n"
                                + "wait active timeout=20s\nterminate\n",
                            ["WORKER_HELLO_DELAY": "3"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.child["aware"] as? Bool == true)
        #expect(run.violations.isEmpty)
        let hello = try #require(run.time(of: "request", "hello 1"))
        #expect(hello >= 2900, "the worker said hello 3 s after its launch")
        #expect(run.timeline("state").first == "active", "\(run.timeline("state"))")
        let active = try #require(run.time(of: "state", "active"))
        #expect(active >= hello, "active only at the hello")
        let resign = try #require(run.time(of: "event", "will-resign-active"))
        #expect(resign >= hello, "'background' waited for 'wait active', which waited for the hello")
        #expect(events().contains("did-enter-background 1 2000 30000"), "\(events())")
        #expect(events().contains("will-terminate 5000"), "\(events())")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
        #expect(run.timeline("state").contains("suspended"))
    }

    @Test func aWorkerThatNeverSaysHelloIsKilledForALaunchViolation() throws {
        let junit = temporary.file("junit.xml"), html = temporary.file("run.html")
        let run = try aware(["--launch-timeout", "1", "--junit", junit, "--html", html],
                            stdin: "wait active timeout=20s\nbackground\nwait suspended timeout=20s\nterminate\n",
                            ["WORKER_HELLO": "0"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(run.violations.count == 1)
        #expect(run.violations.first?["kind"] as? String == "launch", "\(run.violations)")
        let at = try #require(run.violations.first?["at_ms"] as? Double)
        #expect(at >= 1000 && at < 10_000, "judged at the launch timeout: \(at)")
        #expect(run.exit["by"] as? String == "violation", "\(run.exit)")
        #expect(run.exit["status"] as? Int == 137, "killed with SIGKILL: \(run.exit)")
        #expect(run.child["aware"] as? Bool == false)
        #expect(!events().contains { $0.hasPrefix("did-enter-background") || $0.hasPrefix("will-resign-active") },
                "never moved: \(events())")
        #expect(run.stderr.contains("launch violation: killed"), "\(run.stderr)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xmlWellFormednessError(xml) == nil, "\(xml)")
        #expect(xml.contains("<testcase name=\"worker\"") && xml.contains("<failure message=\"launch violation"), "\(xml)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("launch violation: killed</text>"), "the picture draws it")
    }

    @Test func withoutAwareASilentWorkerRunsUnawareAsBefore() throws {
        let run = try Supervise.run(["--window", "0.3", "--freeze-timeout", "5", "--name", "worker", "--",
                                     Supervise.worker("aware-worker.sh")],
                                    stdin: "background\nwait suspended timeout=20s\nterminate\n",
                                    environment: ["WORKER_HELLO": "0", "WORKER_LOG": log])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.violations.isEmpty && run.child["aware"] as? Bool == false)
    }
}
