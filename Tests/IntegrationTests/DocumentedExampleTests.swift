import Foundation
import Testing
import SuperviseTestSupport

/// Each example run the way the README and the docs say, with the built binaries, from a temporary working
/// directory rather than the repository: it ends in time with the status the docs give, and leaves no file
/// in the repository, in the working directory, or in its `TMPDIR`.
///
/// A documented command that runs until told otherwise (a worker in the foreground) gets the lifecycle a
/// user would type on its standard input: background, wait for the suspension, foreground, terminate.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct DocumentedExampleTests {
    let workingDirectory = TemporaryDirectory(prefix: "supervise-example-cwd")
    let temporaryDirectory = TemporaryDirectory(prefix: "supervise-example-tmp")

    static let repository = ExampleTests.examples.deletingLastPathComponent()

    static func example(_ path: String) -> String { ExampleTests.example(path) }

    /// What a user types to take a worker through one cycle and end it.
    static let typedCycle = "background\nwait suspended timeout=20s\nforeground\nwait active\nterminate\n"

    /// Runs `command` from the temporary working directory, with `TMPDIR` set to a directory of its own,
    /// and records an issue for every file it left in the repository, the working directory or `TMPDIR`.
    func run(_ command: [String], stdin: String = "", typedOnceSeen: String? = nil, environment: [String: String] = [:],
             timeout: Double) throws -> ExampleCommand.Result {
        let before = ExampleCommand.repositoryFiles(Self.repository)
        let result = try ExampleCommand.run(command, in: workingDirectory.url, stdin: stdin, typedOnceSeen: typedOnceSeen,
                                            environment: environment.merging(["TMPDIR": temporaryDirectory.path]) { $1 },
                                            timeout: timeout)
        let after = ExampleCommand.repositoryFiles(Self.repository)
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        #expect(changed.isEmpty, "\(command) changed the repository: \(changed.sorted())")
        let leftInWorkingDirectory = (try? FileManager.default.contentsOfDirectory(atPath: workingDirectory.path)) ?? []
        #expect(leftInWorkingDirectory.isEmpty, "\(command) left files in its working directory: \(leftInWorkingDirectory.sorted())")
        let leftInTemporary = (try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory.path)) ?? []
        #expect(leftInTemporary.isEmpty, "\(command) left files in TMPDIR: \(leftInTemporary.sorted())")
        #expect(result.elapsed < timeout, "\(command) took \(result.elapsed) s")
        return result
    }

    // MARK: README

    /// README tour: `supervise --config examples/supervise.toml`; the file says it ends in about 5 s with status 1.
    @Test func configFromTheTourEndsOnItsOwn() throws {
        let result = try run([Supervise.binary, "--config", Self.example("supervise.toml")], timeout: 20)
        #expect(result.status == 1, "api's failed first start is the run's status\n\(result.stderr)")
        #expect(result.elapsed < 12)
        #expect(result.stdout.contains("api    | first start: failing with status 1"), "\(result.stdout)")
        #expect(result.stdout.contains("api    | restarted: serving on port 8080 in / for 3 s"))
        #expect(result.stdout.contains("batch  | did-enter-background 1 2000 30000"))
        #expect(result.stdout.contains("batch  | finished"))
        #expect(result.stdout.contains("report | wrote 4 lines to "))
        #expect(result.stderr.contains("supervise: api: restarting in 1s"))
        #expect(!result.stderr.contains("violation"), "\(result.stderr)")
    }

    /// examples/parking.toml, with the commands its comment pipes in: the third parked worker's
    /// suspension reclaims the first, which the next event launches again, `reclaimed`.
    @Test func parkingConfigReclaimsTheWorkerSuspendedLongest() throws {
        let commands = ["event mail push", "wait suspended mail", "event photos sync", "wait suspended photos",
                        "event backup nightly", "wait suspended backup", "wait not-running mail", "status",
                        "event mail push again", "wait suspended mail", "terminate all"]
        let result = try run([Supervise.binary, "--config", Self.example("parking.toml")],
                             stdin: commands.joined(separator: "\n") + "\n", timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"name\":\"mail\",") && result.stdout.contains("\"state\":\"not-running\""),
                "\(result.stdout)")
        #expect(result.stdout.contains("mail   | launched in the background (reclaimed: restoring saved state)"))
        #expect(result.stdout.contains("mail   | handling push again"))
        #expect(result.stderr.contains("supervise: mail: reclaimed: suspended children held"), "\(result.stderr)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")
    }

    /// README set-up: `swift build -c release && examples/demo.sh` (here with the binary the tests use).
    @Test func demoScriptFromTheSetUp() throws {
        let result = try run([Self.example("demo.sh")], environment: ["SUPERVISE": Supervise.binary], timeout: 40)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("supervise exited with 0; checkpoint: processed="), "\(result.stdout)")
        #expect(result.stdout.contains("final"))
        #expect(result.stdout.contains("suspended"))
    }

    // MARK: The workers, as their own comments say

    /// examples/bash/batch-job.sh: `supervise --window 2 -- examples/bash/batch-job.sh`, no CHECKPOINT.
    @Test func bashBatchJob() throws {
        let result = try run([Supervise.binary, "--window", "2", "--", Self.example("bash/batch-job.sh")],
                             stdin: Self.typedCycle, timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("supervise: batch-job.sh: suspended"), "\(result.stderr)")
        #expect(result.stderr.contains("batch-job: final checkpoint: processed="), "\(result.stderr)")
    }

    /// examples/python/worker.py: `supervise --window 2 --limit 10 -- python3 examples/python/worker.py`.
    /// Typed once the worker has started (it logs the launch event after its hello): a Python
    /// slower to start than the window on a loaded machine would otherwise be unaware.
    @Test func pythonWorker() throws {
        let result = try run([Supervise.binary, "--window", "2", "--limit", "10", "--", "python3", Self.example("python/worker.py")],
                             stdin: Self.typedCycle, typedOnceSeen: "python-worker: did-finish-launching", timeout: 40)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("supervise: python3: suspended"), "\(result.stderr)")
        #expect(!result.stderr.contains("not running under supervise"))
        #expect(result.stderr.contains("python-worker: terminating after"))
    }

    /// README and docs/client.md: `swift build --product swift-worker-example`, then
    /// `supervise --window 0.5 -- "$(swift build --show-bin-path)/swift-worker-example"`. The worker must find
    /// itself supervised (under `swift run` it would not).
    @Test func swiftWorker() throws {
        let result = try run([Supervise.binary, "--window", "0.5", "--", ExampleTests.swiftWorker],
                             stdin: Self.typedCycle, timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("not running under supervise"), "\(result.stderr)")
        #expect(result.stderr.contains("swift-worker: state saved"))
        #expect(result.stderr.contains("supervise: swift-worker-example: suspended"))
        #expect(result.stderr.contains("swift-worker: terminating"))
    }

    /// docs/client.md: a worker below the child (here under a shell, as under `swift run`) is not the process
    /// the channels are meant for; it runs unsupervised and says so once on standard error.
    @Test func swiftWorkerBelowTheChildSaysItRunsUnsupervised() throws {
        let result = try run([Supervise.binary, "--window", "0.5", "--", "sh", "-c", "timeout 1 \"$0\"; exit 0",
                              ExampleTests.swiftWorker], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("not running under supervise"), "\(result.stderr)")
        let notices = result.stderr.split(separator: "\n").filter { $0.hasPrefix("SuperviseClient: SUPERVISE_PID is ") }
        #expect(notices.count == 1, "\(result.stderr)")
        #expect(notices.first?.contains("runs unsupervised") == true)
    }

    // MARK: CI

    /// docs/protocol.md: `WINDOW=2 LIMIT=10 examples/ci/check-lifecycle.sh python3 examples/python/worker.py`,
    /// and the workflow's other workers, with the binary the tests use as `SUPERVISE`.
    @Test(arguments: ["bash", "python", "swift"]) func ciCheck(worker: String) throws {
        let command = switch worker {
        case "bash": [Self.example("bash/batch-job.sh")]
        case "python": ["python3", Self.example("python/worker.py")]
        default: [ExampleTests.swiftWorker]
        }
        let result = try run([Self.example("ci/check-lifecycle.sh")] + command,
                             environment: ["SUPERVISE": Supervise.binary, "WINDOW": "2", "LIMIT": "10"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("lifecycle check: passed"), "\(result.stdout)")
    }
    /// `examples/ci/ctl-lifecycle.sh`: supervise in the background, each step one `supervise ctl`;
    /// it leaves no file behind (its socket's directory included).
    @Test func ctlStepsDriveACompliantWorker() throws {
        let result = try run([Self.example("ci/ctl-lifecycle.sh"), "python3", Self.example("python/worker.py")],
                             environment: ["SUPERVISE": Supervise.binary, "WINDOW": "2", "LIMIT": "3",
                                           "FLUSH_SECONDS": "0.3"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("step: supervise ctl terminate"), "\(result.stdout)")
        #expect(result.stdout.contains("\"name\":\"worker\""), "the status step printed JSON: \(result.stdout)")
        #expect(result.stdout.hasSuffix("lifecycle check: passed\n"), "\(result.stdout)")
        #expect(result.stderr.contains("resumed for event ci-check resumed by the lifecycle check"), "\(result.stderr)")
    }

    /// `TASK=sync examples/ci/ctl-lifecycle.sh examples/bash/cache-sync.sh`, as the workflow runs it:
    /// the parked worker woken by `run-task`, completing its sync, frozen again.
    @Test func ctlStepsCheckAScheduledTask() throws {
        let result = try run([Self.example("ci/ctl-lifecycle.sh"), Self.example("bash/cache-sync.sh")],
                             environment: ["SUPERVISE": Supervise.binary, "WINDOW": "1", "LIMIT": "3", "TASK": "sync",
                                           "SYNC_SECONDS": "0.3"], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("\"id\":\"sync\",\"kind\":\"refresh\",\"state\":\"pending\""), "\(result.stdout)")
        #expect(result.stderr.contains("cache-sync: synced"), "\(result.stderr)")
        #expect(result.stdout.hasSuffix("lifecycle check: passed\n"), "\(result.stdout)")
    }

    @Test func ctlStepsFailAWorkerWhoseScheduledTaskFails() throws {
        let result = try run([Self.example("ci/ctl-lifecycle.sh"), Supervise.worker("aware-worker.sh")],
                             environment: ["SUPERVISE": Supervise.binary, "WINDOW": "1", "LIMIT": "3", "TASK": "sync",
                                           "WORKER_REQUESTS": "schedule sync refresh earliest=900",
                                           "WORKER_ON_TASK": "failure", "WORKER_TASK_SECONDS": "0.1"], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("lifecycle check: FAILED: a scheduled task completed with failure"), "\(result.stdout)")
    }

    @Test func ctlStepsFailAWorkerThatNeverSaysHello() throws {
        let result = try run([Self.example("ci/ctl-lifecycle.sh"), Supervise.worker("aware-worker.sh")],
                             environment: ["SUPERVISE": Supervise.binary, "LAUNCH_TIMEOUT": "1", "WORKER_HELLO": "0"],
                             timeout: 60)
        #expect(result.status != 0, "\(result.stdout)")
        #expect(result.stdout.contains("lifecycle check: FAILED at 'supervise ctl wait active"), "\(result.stdout)")
    }

    @Test func ctlStepsFailAWorkerThatHoldsItsTaskPastTheLimit() throws {
        let result = try run([Self.example("ci/ctl-lifecycle.sh"), Supervise.worker("aware-worker.sh")],
                             environment: ["SUPERVISE": Supervise.binary, "WINDOW": "1", "LIMIT": "2",
                                           "WORKER_ON_BACKGROUND": "hold"], timeout: 60)
        #expect(result.status != 0, "\(result.stdout)")
        #expect(result.stdout.contains("lifecycle check: FAILED"), "\(result.stdout)")
    }
}


/// Runs a documented command as a user would, and reads what it left.
enum ExampleCommand {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var elapsed: Double
    }

    /// Runs `command` (the program first: a path, or a name looked up on `PATH`) in `directory` with
    /// `stdin` as its input, typed once its stderr shows `typedOnceSeen` when given (as a person
    /// waits to see the worker start); after `timeout` seconds kills it and records an issue.
    static func run(_ command: [String], in directory: URL, stdin: String, typedOnceSeen: String? = nil,
                    environment: [String: String], timeout: Double) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe.closedOnExec()
        process.standardInput = input
        let captured = CapturedOutput(of: process)
        let start = Date()
        try process.run()
        if let awaited = typedOnceSeen, !eventually(timeout: timeout / 2, interval: 0.02, { captured.stderr.contains(awaited) }) {
            Issue.record("\(command) never wrote '\(awaited)': \(captured.stderr)")
        }
        input.fileHandleForWriting.writeUnlessReaderEnded(stdin)
        try input.fileHandleForWriting.close()
        if !eventually(timeout: timeout, interval: 0.02, { !process.isRunning }) {
            Issue.record("\(command) did not end within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        // A descendant that outlived the command may hold the pipes: don't wait for it for long.
        if !captured.waitForEnd(timeout: 5) {
            Issue.record("\(command): its output stayed open after it exited (a process it started is still running)")
        }
        return Result(status: process.terminationStatus, stdout: captured.stdout, stderr: captured.stderr, elapsed: elapsed)
    }

    /// Every file under `examples/` with its size and modification time, and the names at the top of the
    /// repository: what an example run must not change.
    static func repositoryFiles(_ repository: URL) -> [String: String] {
        var files: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: repository.path)) ?? [] {
            files[name] = ""
        }
        let examples = repository.appendingPathComponent("examples")
        let enumerator = FileManager.default.enumerator(at: examples, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            let path = String(url.path.dropFirst(repository.path.count))
            files[path] = "\(values?.fileSize ?? -1) \(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
        }
        return files
    }
}
