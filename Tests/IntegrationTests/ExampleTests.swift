import Foundation
import Testing
import SuperviseTestSupport

/// The workers in `examples/` run under the real `supervise`, each through a full background →
/// expiry or suspension → foreground cycle, and do what their comments claim.
@Suite(.serialized, .timeLimit(.minutes(6))) struct ExampleTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    /// The repository's `examples` directory.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples")

    static func example(_ path: String) -> String { examples.appendingPathComponent(path).path }

    /// The Swift example, built next to `supervise` because the integration tests depend on it.
    static var swiftWorker: String {
        URL(fileURLWithPath: Supervise.binary).deletingLastPathComponent().appendingPathComponent("swift-worker-example").path
    }

    static let cycle = "background\nwait suspended timeout=15s\nforeground\nwait active\nterminate\nwait exited\n"

    static let fullCycleStates = ["active", "background", "suspending", "suspended", "active", "terminating", "exited"]

    // MARK: bash

    @Test func bashBatchJobCheckpointsThenUploadsUnderATask() throws {
        let checkpoint = directory.appendingPathComponent("checkpoint.txt").path
        var backgroundCheckpoint = ""
        let run = try Supervise.run(
            ["--name", "worker", "--window", "0.3", "--", Self.example("bash/batch-job.sh")], stdin: Self.cycle,
            environment: ["CHECKPOINT": checkpoint, "UPLOAD_SECONDS": "1"],
            whileRunning: { _ in
                eventually {
                    backgroundCheckpoint = (try? String(contentsOfFile: checkpoint, encoding: .utf8)) ?? ""
                    return !backgroundCheckpoint.isEmpty
                }
            })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(backgroundCheckpoint.hasPrefix("processed="), "written on did-enter-background")
        #expect(!backgroundCheckpoint.contains("final"))
        let finalCheckpoint = try String(contentsOfFile: checkpoint, encoding: .utf8)
        #expect(finalCheckpoint.hasPrefix("processed=") && finalCheckpoint.contains("final"), "written on will-terminate")

        #expect(run.timeline("state") == Self.fullCycleStates)
        #expect(run.timeline("request").contains("begin upload-1 upload checkpoint"))
        let background = try #require(run.time(of: "state", "background"))
        let end = try #require(run.time(of: "request", "end upload-1"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(end - background >= 900, "the upload held its task past the 0.3 s window")
        #expect(suspended >= end)
        #expect(run.time(of: "request", "done 1") != nil)
        #expect(run.violations.isEmpty)
        #expect(run.child["aware"] as? Bool == true)
    }

    @Test func bashBatchJobStopsItsUploadOnExpire() throws {
        let run = try Supervise.run(
            ["--name", "worker", "--window", "0.3", "--limit", "2", "--expiry-warning", "1", "--",
             Self.example("bash/batch-job.sh")], stdin: Self.cycle,
            environment: ["CHECKPOINT": directory.appendingPathComponent("checkpoint.txt").path, "UPLOAD_SECONDS": "30"])
        #expect(run.status == 0, "\(run.stderr)")
        let expire = try #require(run.time(of: "event", "expire upload-1"))
        let end = try #require(run.time(of: "request", "end upload-1"))
        #expect(end >= expire && end - expire < 900, "the task ends as soon as it expires, before the limit")
        #expect(run.violations.isEmpty)
        #expect(run.timeline("state") == Self.fullCycleStates)
    }

    // MARK: Python

    @Test func pythonWorkerEndsItsTaskOnExpire() throws {
        // The window leaves Python time to start and say hello; the flush outlasts the limit.
        let run = try Supervise.run(
            ["--name", "worker", "--window", "2", "--limit", "3", "--expiry-warning", "1.5", "--",
             "python3", Self.example("python/worker.py")], stdin: Self.cycle, environment: ["FLUSH_SECONDS": "30"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.child["aware"] as? Bool == true)
        #expect(run.timeline("request").contains("begin 1 flush results"))
        #expect(run.time(of: "request", "done 1") != nil, "the handler returns at once; the task keeps it running")
        let background = try #require(run.time(of: "state", "background"))
        let expire = try #require(run.time(of: "event", "expire 1"))
        let end = try #require(run.time(of: "request", "end 1"))
        #expect(expire - background >= 1400 && expire - background < 2500)
        #expect(end >= expire && end - expire < 900, "the task ends on expire, before the limit")
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(suspended >= end)
        #expect(run.violations.isEmpty)
        #expect(run.timeline("state") == Self.fullCycleStates)
        #expect(run.stderr.contains("python-worker: task 1 expired: stopping the flush"))
    }

    // MARK: Swift

    @Test func swiftWorkerIsSuspendedAfterItsTaskEnds() throws {
        let run = try Supervise.run(
            ["--name", "worker", "--window", "0.3", "--", Self.swiftWorker], stdin: Self.cycle,
            environment: ["WORK_SECONDS": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.child["aware"] as? Bool == true)
        #expect(run.timeline("request").contains("begin 1 save state"))
        let background = try #require(run.time(of: "state", "background"))
        let end = try #require(run.time(of: "request", "end 1"))
        let suspended = try #require(run.time(of: "state", "suspended"))
        #expect(end - background >= 900, "the save held its task past the 0.3 s window")
        #expect(suspended >= end)
        #expect(run.violations.isEmpty)
        #expect(run.timeline("state") == Self.fullCycleStates)
        #expect(run.tasks.first?["expire_ms"] is NSNull, "the save finished before any expire")
    }

    @Test func swiftWorkerCancelsItsSaveOnExpire() throws {
        let run = try Supervise.run(
            ["--name", "worker", "--window", "0.3", "--limit", "2", "--expiry-warning", "1", "--", Self.swiftWorker],
            stdin: Self.cycle, environment: ["WORK_SECONDS": "30"])
        #expect(run.status == 0, "\(run.stderr)")
        let expire = try #require(run.time(of: "event", "expire 1"))
        let end = try #require(run.time(of: "request", "end 1"))
        #expect(end >= expire && end - expire < 900)
        #expect(run.violations.isEmpty)
        #expect(run.timeline("state") == Self.fullCycleStates)
    }

    // MARK: CI check

    /// Runs `examples/ci/check-lifecycle.sh WORKER...` with short timings; returns its status and output.
    func checkLifecycle(_ worker: [String], _ environment: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.example("ci/check-lifecycle.sh"))
        process.arguments = worker
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging([
            "SUPERVISE": Supervise.binary, "WINDOW": "2", "LIMIT": "3", "EXPIRY_WARNING": "1",
        ]) { $1 }) { $1 }
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func ciCheckPassesACompliantWorker() throws {
        let result = try checkLifecycle(["python3", Self.example("python/worker.py")], ["FLUSH_SECONDS": "0.3"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("lifecycle check: passed"))
    }

    @Test func ciCheckFailsAWorkerThatHoldsItsTaskPastTheLimit() throws {
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")], ["WORKER_ON_BACKGROUND": "hold"])
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("expiry violation"))
        #expect(result.output.contains("tasks still open: t1 (upload)"))
    }

    @Test func ciCheckFailsAWorkerThatOverrunsItsWindow() throws {
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")], ["WORKER_ON_BACKGROUND": "ignore"])
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("window violation"))
    }
}
