import Foundation
import Testing
import SuperviseTestSupport

/// The Python example's scheduled refresh (`REFRESH_EVERY`), against the supervisor's side of the
/// wire written by hand: its events on stdin, its requests read from stdout. Under the real
/// `supervise`, parked and woken for it: `ExampleSchedulingTests`.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(2))) struct PythonSchedulingTests {
    /// Runs `examples/python/worker.py` with `events` written at once, and closes its events once
    /// its requests say `enough` (or 10 s passed): the requests and what it logged.
    private func run(
        _ events: String, environment: [String: String], until enough: @escaping ([String]) -> Bool
    ) throws -> (requests: [String], log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // SUPERVISE_PID must be the worker's own: the shell's, which execs it.
        process.arguments = ["-c", "SUPERVISE_PID=$$ exec python3 \"$0\"", ExampleTests.example("python/worker.py")]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.merging([
            "SUPERVISE_PROTOCOL": "1", "SUPERVISE_EVENTS_FD": "0", "SUPERVISE_REQUESTS_FD": "1", "FLUSH_SECONDS": "0.1",
        ]) { $1 }
        let eventsPipe = Pipe()
        process.standardInput = eventsPipe
        let output = CapturedOutput(of: process)
        try process.run()
        eventsPipe.fileHandleForWriting.writeUnlessReaderEnded(events)
        let requests = { output.stdout.split(separator: "\n").map(String.init) }
        let sawEnough = eventually(timeout: 10) { enough(requests()) }
        try eventsPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        output.expectEnd(of: "python3 worker.py", timeout: 5)
        #expect(sawEnough, "the requests fell short: \(output.stdout) / \(output.stderr)")
        #expect(process.terminationStatus == 0, "\(output.stderr)")
        return (requests(), output.stderr)
    }

    private static let wokenForRefresh = "did-finish-launching background\ndid-enter-background 1 5000 30000\ntask refresh refresh 30000\n"

    @Test func aRefreshTaskIsCompletedAndScheduledAgain() throws {
        let schedule = "schedule refresh refresh earliest=900000ms requires=network"
        let run = try run(Self.wokenForRefresh, environment: ["REFRESH_EVERY": "900", "REFRESH_NEEDS_NETWORK": "1"]) {
            $0.filter { $0 == schedule }.count == 2
        }
        #expect(Array(run.requests.prefix(2)) == ["hello 1", schedule], "scheduled as it starts")
        #expect(run.requests.contains("done 1"))
        let completed = try #require(run.requests.firstIndex(of: "task-completed refresh success"))
        #expect(run.requests[(completed + 1)...].contains(schedule), "the next one is asked for once this one is done")
        #expect(run.log.contains("python-worker: woken for refresh task refresh (30000 ms)"))
    }

    @Test func expireStopsTheRefreshAndFailsTheTask() throws {
        let environment = ["REFRESH_EVERY": "60", "REFRESH_SECONDS": "30"]
        let run = try run(Self.wokenForRefresh + "expire refresh\n", environment: environment) {
            $0.contains("task-completed refresh failure")
        }
        #expect(run.requests.filter { $0.hasPrefix("schedule ") }.first == "schedule refresh refresh earliest=60000ms")
        #expect(!run.requests.contains("task-completed refresh success"))
        #expect(run.log.contains("python-worker: refresh stopped by expire"))
    }
}
