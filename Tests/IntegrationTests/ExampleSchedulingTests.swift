import Foundation
import Testing
import SuperviseTestSupport

/// The examples' scheduled refresh (`REFRESH_EVERY`) under the real `supervise`, on every freezer:
/// the Swift example, through the client library's `BackgroundTaskScheduler`, and the Python one
/// ask for a refresh, are parked, are thawed for it when it is due, complete it and are frozen
/// again, as the kernel shows.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ExampleSchedulingTests {
    enum Example: String, CaseIterable, CustomTestStringConvertible {
        case swift, python

        var testDescription: String { rawValue }

        var command: [String] {
            switch self {
            case .swift: [ExampleTests.swiftWorker]
            case .python: ["python3", ExampleTests.example("python/worker.py")]
            }
        }

        /// Its background work (the save, the flush) short, so the entries are over quickly.
        var environment: [String: String] {
            switch self {
            case .swift: ["WORK_SECONDS": "0.1"]
            case .python: ["FLUSH_SECONDS": "0.1"]
            }
        }

        /// What it logs once it has said hello.
        var launched: String { self == .swift ? "swift-worker: launched in the" : "python-worker: did-finish-launching" }

        func said(_ text: String) -> String { "\(rawValue)-worker: \(text)" }
    }

    /// The times (ms) at which the run's timeline shows the child entering `state`.
    static func times(_ run: SuperviseRun, state: String) -> [Double] {
        run.timeline.filter { $0["kind"] as? String == "state" && $0["text"] as? String == state }.compactMap { $0["t_ms"] as? Double }
    }

    @Test(arguments: Example.allCases, Backend.usable(in: "ExampleSchedulingTests"))
    func aParkedExampleIsThawedForItsRefreshAndFrozenAgainOnceItCompletes(example: Example, backend: Backend) throws {
        // Due 5 s after it starts: well after it is parked, and the next one 5 s after this one.
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0.5",
                                      "--name", "worker", "--"] + example.command,
                                     environment: example.environment.merging(["REFRESH_EVERY": "5", "REFRESH_SECONDS": "0.5"]) { $1 })
        defer { live.stop() }
        // Parked once it said hello: a worker slower to start than the window would be unaware.
        #expect(eventually(timeout: 30) { live.log.contains(example.launched) }, "\(live.log)")
        live.send(["background", "wait suspended timeout=20s"])
        let child = SupervisedChild(backend: backend, supervisorPID: live.pid)
        let frozenBefore = child.waitFrozen(timeout: 20)
        let woken = example.said("woken for refresh task refresh (30000 ms)")
        let wokenBeforeParked = live.log.contains(woken)
        // Only a thawed worker logs.
        let taskSeen = frozenBefore && eventually(timeout: 20) { live.log.contains(woken) }
        let completed = taskSeen && eventually(timeout: 10) { live.log.contains(example.said("refresh finished")) }
        let frozenAfter = completed && child.waitFrozen(timeout: 20)
        live.send("terminate")
        let run = live.finish()
        #expect(frozenBefore, "the kernel never showed the parked worker frozen:\n\(run.stderr)")
        #expect(!wokenBeforeParked, "the refresh came before the worker was parked:\n\(run.stderr)")
        #expect(taskSeen && completed, "the worker was never woken for its refresh, or never finished it:\n\(run.stderr)")
        #expect(frozenAfter, "the kernel never showed the worker frozen again after its refresh:\n\(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")

        #expect(run.timeline("request").contains("schedule refresh refresh earliest=5000ms"), "\(run.timeline("request"))")
        let record = try #require((run.child["scheduled_tasks"] as? [[String: Any]])?.first, "no scheduled task in the report")
        #expect(record["outcome"] as? String == "success", "\(record)")
        let started = try #require(record["started_ms"] as? Double)
        let ended = try #require(record["ended_ms"] as? Double)
        #expect(ended - started >= 500, "it refreshed for 0.5 s: \(record)")
        let suspended = Self.times(run, state: "suspended")
        #expect(suspended.first.map { $0 < started } == true, "parked before the task started: \(suspended), \(record)")
        #expect(suspended.contains { $0 >= ended }, "suspended again once it completed: \(suspended), \(record)")
    }
}
