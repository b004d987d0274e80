import Foundation
import Testing
import SuperviseTestSupport

/// The workers in `examples/` run under the real `supervise`, each through a full background →
/// expiry or suspension → foreground cycle, and do what their comments claim.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(6))) struct ExampleTests {
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

    /// The cycle once an `--aware` worker has said hello (it stays launching until then): one
    /// slower to start than the supervisor read `background` was unaware (with 12 or 16 test
    /// threads, the Swift and the bash examples).
    static let awareCycle = "wait active\n" + cycle

    static let fullCycleStates = ["active", "background", "suspending", "suspended", "active", "terminating", "exited"]

    // MARK: bash

    @Test func bashBatchJobCheckpointsThenUploadsUnderATask() throws {
        let checkpoint = directory.appendingPathComponent("checkpoint.txt").path
        var backgroundCheckpoint = ""
        let run = try Supervise.run(
            ["--name", "worker", "--window", "0.3", "--aware", "--", Self.example("bash/batch-job.sh")],
            stdin: Self.awareCycle,
            environment: ["CHECKPOINT": checkpoint, "UPLOAD_SECONDS": "1"],
            whileRunning: { _ in
                #expect(eventually {
                    backgroundCheckpoint = (try? String(contentsOfFile: checkpoint, encoding: .utf8)) ?? ""
                    return !backgroundCheckpoint.isEmpty
                }, "the job wrote a checkpoint while it ran")
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
            ["--name", "worker", "--window", "0.3", "--limit", "2", "--expiry-warning", "1", "--aware", "--",
             Self.example("bash/batch-job.sh")], stdin: Self.awareCycle,
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
        // The cycle starts once Python has said hello (it logs the launch event after it): a Python
        // slower to start than the window on a loaded machine was unaware. The flush outlasts the limit.
        let live = try LiveSupervise(
            ["--name", "worker", "--window", "2", "--limit", "3", "--expiry-warning", "1.5", "--",
             "python3", Self.example("python/worker.py")], environment: ["FLUSH_SECONDS": "30"])
        defer { live.stop() }
        #expect(eventually(timeout: 30) { live.log.contains("python-worker: did-finish-launching") }, "\(live.log)")
        live.send(Self.cycle.split(separator: "\n").map(String.init))
        let run = live.finish()
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
            ["--name", "worker", "--window", "0.3", "--aware", "--", Self.swiftWorker], stdin: Self.awareCycle,
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
            ["--name", "worker", "--window", "0.3", "--limit", "2", "--expiry-warning", "1", "--aware", "--",
             Self.swiftWorker], stdin: Self.awareCycle, environment: ["WORK_SECONDS": "30"])
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
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SUPERVISE": Supervise.binary, "WINDOW": "2", "LIMIT": "3", "EXPIRY_WARNING": "1",
        ].merging(environment) { $1 }) { $1 }
        process.currentDirectoryURL = directory
        let output = Pipe.closedOnExec()
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
        let junit = directory.appendingPathComponent("junit.xml").path
        let html = directory.appendingPathComponent("run.html").path
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")],
                                        ["WORKER_ON_BACKGROUND": "hold", "JUNIT": junit, "HTML": html])
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("expiry violation"))
        #expect(result.output.contains("tasks still open: t1 (upload)"))
        // JUNIT, as the example workflow sets it: the worker's case fails, naming its task.
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xmlWellFormednessError(xml) == nil, "\(xml)")
        #expect(xml.contains("<testcase name=\"worker\"") && xml.contains("<failure message=\"expiry violation"), "\(xml)")
        #expect(xml.contains("t1 (upload)"), "\(xml)")
        // HTML, as the example workflow sets it: the worker's lane, with the violation.
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("data-child=\"worker\"") && page.contains("expiry violation: killed</text>"))
        #expect(result.output.contains("lifecycle check: the timeline is drawn in \(html)"))
    }

    /// The sudo route of docs/deploy.md: `SUPERVISE="sudo …"`, `--annotations github` in
    /// SUPERVISE_OPTIONS. `env` with sudo's variables (and without GITHUB_ACTIONS, which sudo
    /// drops) stands in for sudo: the results are the invoking user's, the failure annotated.
    @Test(.enabled(if: TestUser.missingReason == nil, "\(TestUser.missingReason ?? "")"))
    func ciCheckUnderSudoLeavesItsResultsToTheInvokingUser() throws {
        let user = try #require(getpwnam(TestUser.name)).pointee
        let junit = directory.appendingPathComponent("junit.xml").path
        let report = directory.appendingPathComponent("report.json").path
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")], [
            "SUPERVISE": "env SUDO_UID=\(user.pw_uid) SUDO_GID=\(user.pw_gid) GITHUB_ACTIONS= \(Supervise.binary)",
            "SUPERVISE_OPTIONS": "--annotations github", "WORKER_ON_BACKGROUND": "hold",
            "REPORT": report, "JUNIT": junit, "JUNIT_SUITE": "python-worker",
        ])
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("::error title=supervise%3A worker::expiry violation at "), "\(result.output)")
        for file in [junit, report] {
            var info = stat()
            #expect(lstat(file, &info) == 0 && info.st_uid == user.pw_uid && info.st_gid == user.pw_gid, "\(file)")
        }
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"python-worker\"") && xml.contains("classname=\"python-worker\""), "\(xml)")
    }

    @Test func ciCheckFailsAWorkerThatOverrunsItsWindow() throws {
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")], ["WORKER_ON_BACKGROUND": "ignore"])
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("window violation"))
    }

    /// The check runs the worker with --aware: one that never speaks the protocol, or speaks it only
    /// after the launch timeout, fails (before, it passed as an unaware child, issue 23).
    @Test(arguments: [["WORKER_HELLO": "0"], ["WORKER_HELLO_DELAY": "3"]])
    func ciCheckFailsAWorkerThatSaysNoHelloWithinTheLaunchTimeout(worker: [String: String]) throws {
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")],
                                        worker.merging(["LAUNCH_TIMEOUT": "1"]) { $1 })
        #expect(result.status == 124, "\(result.output)")
        #expect(result.output.contains("never said hello") && result.output.contains("launch violation"),
                "\(result.output)")
    }

    /// A worker that says hello late but within the launch timeout passes, having taken part.
    @Test func ciCheckPassesAWorkerThatSaysHelloLateButInTime() throws {
        let result = try checkLifecycle([Supervise.worker("aware-worker.sh")],
                                        ["WORKER_HELLO_DELAY": "3", "LAUNCH_TIMEOUT": "10"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("lifecycle check: passed"))
    }
}
