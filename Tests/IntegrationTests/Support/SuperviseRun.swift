import Foundation
import Synchronization
import Testing
import SuperviseTestSupport

/// One run of the real `supervise` binary, with its output, exit status and report.
struct SuperviseRun {
    var status: Int32
    var stdout: String
    var stderr: String
    var report: [String: Any]?
    var elapsed: Double

    /// The first child's report entry.
    var child: [String: Any] { ((report?["children"] as? [[String: Any]]) ?? []).first ?? [:] }
    var timeline: [[String: Any]] { child["timeline"] as? [[String: Any]] ?? [] }
    var violations: [[String: Any]] { child["violations"] as? [[String: Any]] ?? [] }
    var exit: [String: Any] { child["exit"] as? [String: Any] ?? [:] }
    var tasks: [[String: Any]] { child["tasks"] as? [[String: Any]] ?? [] }

    /// The timeline texts of one kind, in order.
    func timeline(_ kind: String) -> [String] {
        timeline.filter { $0["kind"] as? String == kind }.compactMap { $0["text"] as? String }
    }

    /// Milliseconds at which the timeline first shows `text` of `kind`.
    func time(of kind: String, _ text: String) -> Double? {
        timeline.first { $0["kind"] as? String == kind && ($0["text"] as? String)?.hasPrefix(text) == true }?["t_ms"] as? Double
    }
}

/// Paths and process plumbing shared by the integration tests.
enum Supervise {
    /// The `supervise` binary the integration tests run: `$SUPERVISE_BIN` (`scripts/test.sh` names
    /// the release build), or the one built next to the test bundle.
    static var binary: String {
        ProcessInfo.processInfo.environment["SUPERVISE_BIN"] ?? built("supervise")
    }

    /// The product `name` of the build the test bundle is part of (the debug build `swift test`
    /// makes), whichever `supervise` the tests run: the first directory above the bundle that has it.
    static func built(_ name: String) -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent(name).path
    }

    /// A worker script from `Tests/IntegrationTests/Workers`.
    static func worker(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Workers").appendingPathComponent(name).path
    }

    /// `aware-worker.sh` as the one child `worker`, run `--aware` on `backend` and logging its events
    /// to `log`, with a generous freeze timeout: on a loaded 2-core VM a freeze can take longer than
    /// the default second (that path, freeze-failed, is tested in the core). `stdin` runs after a
    /// `wait active` for its hello: bash may say hello after a short window, and the worker would
    /// then run unaware. A launch into the background needs none (`waitActive: false`): its window
    /// starts at the hello.
    static func awareWorker(_ backend: Backend, _ options: [String], stdin: String, log: String,
                            environment: [String: String] = [:], waitActive: Bool = true,
                            whileRunning: ((Process) throws -> Void)? = nil) throws -> SuperviseRun {
        try run(["--aware", "--freezer", backend.rawValue, "--freeze-timeout", "5"] + options
                    + ["--name", "worker", "--", worker("aware-worker.sh")],
                stdin: (waitActive ? "wait active timeout=20s\n" : "") + stdin,
                environment: environment.merging(["WORKER_LOG": log]) { $1 }, whileRunning: whileRunning)
    }

    /// Runs `supervise ARGUMENTS` with `stdin` as its standard input (closed after writing it), waits at most
    /// `timeout` seconds (then kills it and records an issue), and reads the report if one was asked for.
    static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                    timeout: Double = 30, whileRunning: ((Process) throws -> Void)? = nil) throws -> SuperviseRun {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let reportPath = directory.file("report.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--report", reportPath] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe.closedOnExec()
        process.standardInput = input
        // Read on threads of their own (CapturedOutput), not with `readabilityHandler`: under load
        // corelibs Foundation's handler closed a descriptor number another test's pipe had taken
        // by then, and that test's write to its own pipe trapped on EBADF (swiftlang/swift#57827).
        let captured = CapturedOutput(of: process)
        let start = Date()
        try process.run()
        input.fileHandleForWriting.writeUnlessReaderEnded(stdin)
        try input.fileHandleForWriting.close()
        try whileRunning?(process)
        if !eventually(timeout: timeout, { !process.isRunning }) {
            Issue.record("supervise did not exit within \(timeout) s: \(arguments)")
            process.interrupt()
            if !eventually(timeout: 0.5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        process.waitUntilExit()
        captured.expectEnd(of: "supervise \(arguments.prefix(3).joined(separator: " "))", timeout: 10)
        let report = (try? Data(contentsOf: URL(fileURLWithPath: reportPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return SuperviseRun(status: process.terminationStatus, stdout: captured.stdout, stderr: captured.stderr,
                            report: report, elapsed: Date().timeIntervalSince(start))
    }
}

/// Bytes appended from reader threads.
final class LockedData: Sendable {
    private let data = Mutex(Data())

    func append(_ more: Data) {
        data.withLock { $0.append(more) }
    }

    var string: String {
        data.withLock { String(decoding: $0, as: UTF8.self) }
    }
}
