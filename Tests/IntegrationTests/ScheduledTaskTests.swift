import Foundation
import Testing
import SuperviseTestSupport

/// Scheduled background tasks for real: a parked worker thawed for its task when due, frozen
/// again once it completes it, on every freezer; one held past its time expired and killed.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ScheduledTaskTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var log: String { temporary.file("events.log") }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func scheduled(_ run: SuperviseRun) -> [[String: Any]] { run.child["scheduled_tasks"] as? [[String: Any]] ?? [] }

    /// `Supervise.awareWorker`, logging to this test's `log`.
    func aware(_ backend: Backend, _ options: [String], stdin: String, _ environment: [String: String],
               whileRunning: ((Process) throws -> Void)? = nil) throws -> SuperviseRun {
        try Supervise.awareWorker(backend, options, stdin: stdin, log: log, environment: environment, whileRunning: whileRunning)
    }

    @Test(arguments: Backend.usable(in: "ScheduledTaskTests"))
    func aParkedWorkerIsThawedForItsTaskWhenDueAndFrozenAgainOnceItCompletes(backend: Backend) throws {
        var frozenBefore = false, taskSeen = false, frozenAfter = false
        let run = try aware(backend, ["--window", "1"], stdin: "background\nwait suspended timeout=10s\n",
                            ["WORKER_REQUESTS": "schedule t refresh earliest=2", "WORKER_TASK_SECONDS": "0.3"]) { process in
            let child = SupervisedChild(backend: backend, supervisorPID: process.processIdentifier)
            frozenBefore = child.waitFrozen()
            // Only a thawed worker reads its events and logs them.
            taskSeen = eventually(timeout: 15) { events().contains("task t refresh 30000") }
            frozenAfter = taskSeen && child.waitFrozen()
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(frozenBefore, "the kernel never showed the parked worker frozen")
        #expect(taskSeen, "the worker never read its task: \(events())")
        #expect(frozenAfter, "the kernel never showed the worker frozen again after its task")
        #expect(run.status == 0, "\(run.stderr)")
        let seen = events()
        let task = try #require(seen.firstIndex(of: "task t refresh 30000"))
        #expect(seen[task - 1] == "did-enter-background 2 1000 30000", "the task follows the entry made for it")
        let record = try #require(scheduled(run).first)
        #expect(record["outcome"] as? String == "success")
        let requested = try #require(record["requested_ms"] as? Double)
        let started = try #require(record["started_ms"] as? Double)
        let ended = try #require(record["ended_ms"] as? Double)
        #expect(started - requested >= 2000, "not before earliest=2: \(record)")
        #expect(ended - started >= 300, "the worker completed it after 0.3 s: \(record)")
        #expect(run.timeline("state").filter { $0 == "suspended" }.count >= 2, "\(run.timeline("state"))")
    }

    @Test(arguments: Backend.usable(in: "ScheduledTaskTests"))
    func aTaskHeldPastItsTimeIsExpiredThenKilledAndReported(backend: Backend) throws {
        let run = try aware(backend, ["--window", "0.2", "--refresh-time", "1.5", "--expiry-warning", "0.5"],
                            stdin: "background\nwait exited timeout=10s\n",
                            ["WORKER_REQUESTS": "schedule t refresh", "WORKER_ON_TASK": "hold"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(events().contains("task t refresh 1500") && events().contains("expire t"), "\(events())")
        let record = try #require(scheduled(run).first)
        #expect(record["outcome"] as? String == "expired")
        let started = try #require(record["started_ms"] as? Double)
        let expired = try #require(record["expired_ms"] as? Double)
        let ended = try #require(record["ended_ms"] as? Double)
        #expect(expired - started >= 1000 && ended - started >= 1500, "\(record)")
        let violation = try #require(run.violations.first)
        #expect(violation["kind"] as? String == "expiry")
        #expect((violation["tasks"] as? [[String: Any]])?.first?["id"] as? String == "t")
        #expect(run.exit["by"] as? String == "violation")
    }

    /// Requests are kept across runs, as iOS keeps them across launches: a worker reclaimed while
    /// suspended (a 1 KiB `--suspended-memory` budget) is launched into the background for its task
    /// when it is due, told it was reclaimed, and completes it.
    @Test(arguments: Backend.usable(in: "ScheduledTaskTests"))
    func aReclaimedWorkerIsLaunchedForItsDueTaskAndCompletesIt(backend: Backend) throws {
        let live = try LiveSupervise(["--aware", "--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0.5",
                                      "--suspended-memory", "1K", "--name", "worker", "--", Supervise.worker("aware-worker.sh")],
                                     environment: ["WORKER_LOG": log, "WORKER_REQUESTS": "schedule t refresh earliest=5",
                                                   // Time to see its new process while it runs the task.
                                                   "WORKER_TASK_SECONDS": "1.5"])
        defer { live.stop() }
        let child = SupervisedChild(backend: backend, supervisorPID: live.pid)
        var firstPID: Int32?
        #expect(eventually(timeout: 20) { firstPID = child.pid; return firstPID != nil }, "never started: \(live.log)")
        live.send(["wait active timeout=20s", "background", "wait not-running timeout=20s"])
        let reclaimed = try #require(live.status(timeout: 30), "no status: \(live.log)")
        #expect(reclaimed["state"] as? String == "not-running" && reclaimed["scheduled"] as? [String] == ["t"], "\(reclaimed)")
        #expect((reclaimed["reclaimed"] as? String)?.hasPrefix("reclaimed: suspended children held ") == true, "\(reclaimed)")
        #expect(firstPID.map { kill($0, 0) == -1 && errno == ESRCH } == true, "the kernel still has the reclaimed pid \(firstPID ?? 0)")
        #expect(!events().contains { $0.hasPrefix("task ") }, "the task ran before the reclaim: \(events())")

        let relaunch = ["did-finish-launching background reclaimed", "did-enter-background 1 500 30000", "task t refresh 30000"]
        let launched = eventually(timeout: 20) { events().contains(relaunch[2]) }
        let secondPID = child.pid
        // Once it completes the task it is parked, so reclaimed again.
        live.send(["wait not-running timeout=20s", "terminate"])
        let run = live.finish()
        #expect(launched, "never launched for its task: \(events())\n\(run.stderr)")
        let seen = events()
        let task = try #require(seen.firstIndex(of: relaunch[2]), "\(seen)")
        #expect(Array(seen[(task - 2)...task]) == relaunch, "the launch for the task: \(seen)")
        #expect(!seen.contains { $0.hasPrefix("will-terminate") }, "a reclaim sends no event: \(seen)")
        #expect(secondPID != nil && secondPID != firstPID, "a new process: \(firstPID ?? 0), then \(secondPID ?? 0)")
        #expect(run.status == 0, "a reclaim is never a failure: \(run.stderr)")
        let record = try #require(scheduled(run).first, "no scheduled task in the report")
        #expect(record["outcome"] as? String == "success", "\(record)")
        let runs = run.child["runs"] as? [[String: Any]] ?? []
        #expect(runs.count >= 2 && runs.prefix(2).allSatisfy { ($0["exit"] as? [String: Any])?["by"] as? String == "reclaim" },
                "reclaimed, launched for the task, reclaimed again: \(runs)")
        #expect(run.timeline("note").contains("launched for scheduled task t"), "\(run.timeline("note"))")
        let started = try #require(record["started_ms"] as? Double)
        let reclaimNotes = run.timeline.filter { ($0["text"] as? String)?.hasPrefix("reclaimed: ") == true }
        #expect((reclaimNotes.first?["t_ms"] as? Double).map { $0 < started } == true, "reclaimed before the task: \(reclaimNotes), \(record)")
    }

    /// A config schedule of a child never started: `run-task` launches it straight into the
    /// background for the task, which it completes, and it is frozen. Aware, so that its window
    /// starts at its hello however late bash says it.
    @Test func runTaskLaunchesANotRunningChildForItsConfiguredTask() throws {
        let config = temporary.file("cache.toml")
        try """
            [child.cache]
            command = ["\(Supervise.worker("aware-worker.sh"))"]
            autostart = false
            window = 1
            aware = true
            [child.cache.schedule.sync]
            every = "1h"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config, "--freezer", "sigstop"],
                                    stdin: "run-task cache sync\nwait suspended cache timeout=10s\nterminate\n",
                                    environment: ["WORKER_LOG": log, "WORKER_TASK_SECONDS": "0.1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Array(events().prefix(3)) == ["did-finish-launching background", "did-enter-background 1 1000 30000",
                                              "task sync refresh 30000"], "\(events())")
        #expect(scheduled(run).first?["outcome"] as? String == "success", "\(scheduled(run))")
        #expect(run.timeline("state").contains("suspended"), "\(run.timeline("state"))")
    }

    @Test func aTaskCompletedWithFailureFailsTheRunAndItsJUnitCase() throws {
        let junit = temporary.file("junit.xml")
        let run = try aware(.sigstop, ["--window", "0.5", "--junit", junit], stdin: "background\nwait suspended timeout=10s\nsleep 1\nwait suspended timeout=10s\nterminate\n",
                            ["WORKER_REQUESTS": "schedule t processing earliest=0", "WORKER_ON_TASK": "failure",
                             "WORKER_TASK_SECONDS": "0.1"])
        #expect(run.status == 1, "a failed task is the run's failure: \(run.stderr)")
        #expect(scheduled(run).first?["outcome"] as? String == "failure")
        let xml = (try? String(contentsOfFile: junit, encoding: .utf8)) ?? ""
        #expect(xml.contains("type=\"task\"") && xml.contains("scheduled task t (processing) completed with failure"), "\(xml)")
    }
}
