import Foundation
import Testing
import SuperviseTestSupport

/// The contract's lifecycle, end to end: the real binary, real workers, short timings,
/// against every freezer backend this machine has.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct LifecycleTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }
    var log: String { directory.appendingPathComponent("events.log").path }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// `Supervise.awareWorker`, logging to this test's `log`.
    func aware(_ backend: Backend, _ options: [String], stdin: String, _ environment: [String: String] = [:],
               waitActive: Bool = true) throws -> SuperviseRun {
        try Supervise.awareWorker(backend, options, stdin: stdin, log: log, environment: environment, waitActive: waitActive)
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func unawareChildIsSuspendedAfterTheWindowAndResumed(backend: Backend) throws {
        let counter = directory.appendingPathComponent("counter").path
        let run = try Supervise.run(["--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0.3",
                                     "--", Supervise.worker("counter.sh"), counter],
                                    stdin: "background\nwait suspended timeout=10s\nforeground\nwait active\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.timeline("state") == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"])
        let background = try #require(run.time(of: "state", "background"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(suspended - background >= 300)
        #expect(suspended - background < 3000)
        #expect(run.child["freezer"] as? String == backend.rawValue)
        #expect(run.child["aware"] as? Bool == false)
    }

    /// Each decision reads the clock afresh, and a freeze's verification is decided when it is
    /// verified: once, "frozen in 0.0 ms" with `suspended` at the instant of `background`.
    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func timelineTimesAreTheInstantsOfTheirDecisions(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0",
                                     "--", "sh", "-c", "sleep 30 & sleep 30 & wait"],
                                    stdin: "background\nwait suspended timeout=10s\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        let times = run.timeline.compactMap { $0["t_ms"] as? Double }
        #expect(times == times.sorted(), "entries are in time order")
        let frozen = try #require(run.timeline("freeze").first)
        let took = try #require(Double(frozen.split(separator: " ").dropLast().last ?? ""), "\(frozen)")
        #expect(took > 0, "a freeze takes time to request and verify: \(frozen)")
        let suspending = try #require(run.time(of: "state", "suspending"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(suspended - suspending >= took - 0.002, "suspended is recorded when the freeze is verified (to the µs rounding)")
    }

    /// A held command falling due in the same loop turn as the window's end once ran in the middle
    /// of the window's decision: `foreground` thawed, then the decision's `freeze` froze the child
    /// for good while its state read `active`.
    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func commandDueAsTheWindowEndsRunsAfterTheWindowsFreeze(backend: Backend) throws {
        let counter = directory.appendingPathComponent("counter").path
        func count() -> Int { Int(((try? String(contentsOfFile: counter, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0.5", "--grace", "2",
                                      "--", Supervise.worker("counter.sh"), counter])
        defer { live.stop() }
        // The foreground falls due as the window ends (0.5 s). Then a look, not a wait for a thaw:
        // the bug leaves the child frozen; the half second is the window the counter must move in.
        live.send(["background", "sleep 0.5", "foreground", "wait active"])
        #expect(live.status()?["state"] as? String == "active", "\(live.log)")
        let before = count()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(count() > before, "the child must run once it reads active")
        live.send("terminate")
        let run = live.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.exit["by"] as? String == "terminate")
        #expect(run.exit["in_time"] as? Bool == true, "a frozen child can't act on SIGTERM: \(run.exit)")
        #expect(run.timeline("state").suffix(3) == ["active", "terminating", "exited"])
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func awareChildIsSuspendedWhenItSaysDone(backend: Backend) throws {
        let run = try aware(backend, ["--window", "5"], stdin: "background\nwait suspended timeout=10s\nterminate\n",
                            ["WORKER_ON_BACKGROUND": "done"])
        #expect(run.status == 0, "\(run.stderr)")
        let background = try #require(run.time(of: "state", "background"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(suspended - background < 4000, "done must suspend before the 5 s window ends")
        #expect(run.violations.isEmpty)
        #expect(run.child["aware"] as? Bool == true)
        #expect(events().contains("did-enter-background 1 5000 30000"))
        #expect(events().contains("will-terminate 5000"))
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func taskKeepsTheChildRunningPastTheWindowThenItIsSuspended(backend: Backend) throws {
        let run = try aware(backend, ["--window", "0.3"], stdin: "background\nwait suspended timeout=10s\nterminate\n",
                            ["WORKER_ON_BACKGROUND": "task", "WORKER_TASK_SECONDS": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let background = try #require(run.time(of: "state", "background"))
        let end = try #require(run.time(of: "request", "end t1"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(end - background >= 900, "the task ran past the window")
        #expect(suspended >= end)
        #expect(run.violations.isEmpty)
        #expect(run.tasks.first?["name"] as? String == "upload")
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func heldTaskGetsExpireThenTheChildIsKilledAtTheLimit(backend: Backend) throws {
        let run = try aware(backend, ["--window", "0.2", "--limit", "1.2", "--expiry-warning", "0.5"],
                            stdin: "background\nwait exited timeout=10s\n", ["WORKER_ON_BACKGROUND": "hold"])
        #expect(run.status == 124, "\(run.stderr)")
        let background = try #require(run.time(of: "state", "background"))
        let expire = try #require(run.time(of: "event", "expire t1"))
        let violation = try #require(run.violations.first)
        #expect(expire - background >= 700 && expire - background < 1500)
        #expect(violation["kind"] as? String == "expiry")
        #expect(violation["action"] as? String == "killed")
        #expect((violation["tasks"] as? [[String: Any]])?.first?["name"] as? String == "upload")
        let at = try #require(violation["at_ms"] as? Double)
        #expect(at - background >= 1200 && at - background < 2500)
        #expect(run.exit["by"] as? String == "violation")
        #expect(run.exit["status"] as? Int == 137)
        #expect(events().contains("expire t1"))
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func awareChildThatMissesItsWindowIsKilled(backend: Backend) throws {
        let run = try aware(backend, ["--window", "0.3"], stdin: "background\nwait exited timeout=10s\n",
                            ["WORKER_ON_BACKGROUND": "ignore"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(run.violations.first?["kind"] as? String == "window")
        #expect(run.violations.first?["action"] as? String == "killed")
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func windowOverrunCanSuspendInstead(backend: Backend) throws {
        let run = try aware(backend, ["--window", "0.3", "--on-window-overrun", "suspend"],
                            stdin: "background\nwait suspended timeout=10s\nterminate\n", ["WORKER_ON_BACKGROUND": "ignore"])
        #expect(run.status == 0, "an overrun that suspends is recorded, not fatal: \(run.stderr)")
        #expect(run.violations.first?["action"] as? String == "suspended")
        #expect(run.timeline("state").contains("suspended"))
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func terminateWhileSuspendedThawsAndTellsTheChild(backend: Backend) throws {
        let run = try aware(backend, [], stdin: "background\nwait suspended timeout=10s\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(run.timeline("state").suffix(3)) == ["suspended", "terminating", "exited"])
        #expect(run.exit["by"] as? String == "terminate")
        #expect(run.exit["in_time"] as? Bool == true)
        #expect(events().last == "will-terminate 5000")
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func eventResumesASuspendedChildInTheBackground(backend: Backend) throws {
        let run = try aware(backend, [], stdin: """
            background
            wait suspended timeout=10s
            event worker push hello world
            wait suspended timeout=10s
            terminate

            """)
        #expect(run.status == 0, "\(run.stderr)")
        let seen = events()
        let index = try #require(seen.firstIndex(of: "did-enter-background 2 5000 30000"))
        #expect(seen[index + 1] == "event 2 push hello world")
        #expect(run.timeline("state").filter { $0 == "suspended" }.count == 2)
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func scriptedLifecycleFromStdin(backend: Backend) throws {
        let run = try aware(backend, [], stdin: "# the cli.md example\nbackground\nwait suspended\n\nforeground\nwait active\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.timeline("state") == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"])
        #expect(events() == ["did-finish-launching foreground", "did-become-active", "will-resign-active",
                             "did-enter-background 1 5000 30000", "will-enter-foreground", "did-become-active",
                             "will-terminate 5000"])
    }

    @Test(arguments: Backend.usable(in: "LifecycleTests"))
    func launchInTheBackground(backend: Backend) throws {
        let run = try aware(backend, ["--launch", "background"], stdin: "wait suspended timeout=10s\nforeground\nwait active\nterminate\n",
                            waitActive: false)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(events().prefix(2)) == ["did-finish-launching background", "did-enter-background 1 5000 30000"])
        #expect(!events().contains("will-resign-active"))
    }
}
