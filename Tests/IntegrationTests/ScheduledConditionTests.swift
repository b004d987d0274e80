import Foundation
import Testing
import SuperviseTestSupport

/// A scheduled task that requires a condition waits for it on the real machine's reading: here
/// `power`, read from a stand-in supply directory (`--power-supplies`) that the test plugs in.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ScheduledConditionTests {
    let temporary = TemporaryDirectory()
    var log: String { temporary.file("events.log") }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func supply(_ status: String) throws {
        let battery = temporary.file("power_supply/BAT0")
        try FileManager.default.createDirectory(atPath: battery, withIntermediateDirectories: true)
        try "Battery\n".write(toFile: battery + "/type", atomically: false, encoding: .utf8)
        try "\(status)\n".write(toFile: battery + "/status", atomically: false, encoding: .utf8)
    }

    @Test func aTaskThatRequiresPowerRunsOnlyOncePluggedIn() throws {
        guard let backend = Backend.usable(in: "ScheduledConditionTests").first else { return }
        try supply("Discharging")
        var ranUnplugged = true, taskSeen = false, frozenAfter = false
        let run = try Supervise.run(
            ["--freezer", backend.rawValue, "--window", "0.5", "--power-supplies", temporary.file("power_supply"),
             "--name", "worker", "--", Supervise.worker("aware-worker.sh")],
            stdin: "background\nwait suspended timeout=10s\n",
            environment: ["WORKER_LOG": log, "WORKER_REQUESTS": "schedule t refresh requires=power",
                          "WORKER_TASK_SECONDS": "0.1"]) { process in
                // Due at once, but on battery (read as it fell due): it waits; plugged in, the
                // next 5 s re-read finds it.
                ranUnplugged = eventually(timeout: 2) { events().contains { $0.hasPrefix("task t") } }
                try supply("Charging")
                taskSeen = eventually(timeout: 10) { events().contains("task t refresh 30000") }
                // Frozen again once it completed the task.
                frozenAfter = taskSeen && SupervisedChild(backend: backend, supervisorPID: process.processIdentifier).waitFrozen()
                kill(process.processIdentifier, SIGTERM)
            }
        #expect(!ranUnplugged, "the task ran on battery: \(events())")
        #expect(taskSeen, "the task never ran once plugged in: \(events())")
        #expect(frozenAfter, "the worker was never frozen again after its task")
        #expect(run.status == 0, "\(run.stderr)")
        let record = try #require((run.child["scheduled_tasks"] as? [[String: Any]])?.first)
        #expect(record["outcome"] as? String == "success", "\(record)")
    }
}
