import Foundation
import Testing
import SuperviseTestSupport

/// Commands read from a pipe or file: one that can't be run as written ends the run (123), one a
/// child's state refuses is a logged no-op, and `--keep-going` logs either and goes on.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ScriptFailFastTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }
    var log: String { directory.appendingPathComponent("events.log").path }

    /// Two children: `app` is aware (logs its events to `log`), `job` is not.
    func twoChildren() throws -> String {
        let path = directory.appendingPathComponent("supervise.toml").path
        try """
            [child.app]
            command = ["\(Supervise.worker("aware-worker.sh"))"]
            env = { WORKER_LOG = "\(log)" }
            [child.job]
            command = ["sleep", "300"]
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func errorLines(_ run: SuperviseRun) -> [Substring] {
        run.stderr.split(separator: "\n").filter { $0.contains("error:") }
    }

    /// Once, an unnamed command with two children was refused and end of input left both running:
    /// supervise never exited, and a CI job hung until its own timeout.
    @Test func anUnnamedCommandWithTwoChildrenEndsTheRunGracefully() throws {
        // Kept: `app` must have said hello to be told will-terminate, and no command can wait for that.
        let run = try Supervise.run(["--config", try twoChildren()], stdin: "sleep 2\nbackground\n", timeout: 20)
        #expect(run.status == 123, "\(run.stderr)")
        #expect(run.elapsed < 10, "ended at once, not after a timeout: \(run.elapsed) s")
        let errors = errorLines(run)
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(errors.first?.contains("stdin line 2: 'background': name a child or 'all'") == true, "\(errors)")
        let children = run.report?["children"] as? [[String: Any]] ?? []
        #expect(children.map { $0["name"] as? String } == ["app", "job"])
        for child in children {
            let exit = child["exit"] as? [String: Any] ?? [:]
            #expect(exit["by"] as? String == "terminate", "\(child["name"] ?? "?"): \(exit)")
            #expect(exit["in_time"] as? Bool == true, "\(child["name"] ?? "?"): \(exit)")
        }
        let events = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(events.contains("will-terminate"), "the aware child was told, as by 'terminate all': \(events)")
        let job = (children.last?["exit"] as? [String: Any])?["description"] as? String
        #expect(job == "killed by SIGTERM (15)", "the unaware child got its stop signal, not SIGKILL")
    }

    @Test func aMalformedLineEndsTheRunAndNoLaterCommandRuns() throws {
        let run = try Supervise.run(["--", "sleep", "300"], stdin: "status\n# a comment\nbakground\nstatus\n", timeout: 20)
        #expect(run.status == 123, "\(run.stderr)")
        let errors = errorLines(run)
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(errors.first?.contains("stdin line 3: ignored 'bakground': unknown command") == true, "\(errors)")
        #expect(run.stdout.split(separator: "\n").count == 1, "only the status before it ran: \(run.stdout)")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
    }

    @Test func anOverlongLineEndsTheRun() throws {
        let long = String(repeating: "x", count: 70_000)
        let run = try Supervise.run(["--", "sleep", "300"], stdin: "\(long)\nstatus\n", timeout: 20)
        #expect(run.status == 123, "\(run.stderr.prefix(500))")
        #expect(errorLines(run).first?.contains("stdin line 1: 'xxxx") == true)
        #expect(run.stdout.isEmpty, "no command runs after it: \(run.stdout)")
    }

    @Test(arguments: ["foreground nobody", "wait active nobody"])
    func aNameNoChildHasEndsTheRun(command: String) throws {
        let run = try Supervise.run(["--name", "w", "--", "sleep", "300"], stdin: "\(command)\nstatus\n", timeout: 20)
        #expect(run.status == 123, "\(run.stderr)")
        let errors = errorLines(run)
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(errors.first?.contains("stdin line 1: '\(command)': no child named 'nobody' (children: w)") == true, "\(errors)")
        #expect(run.stdout.isEmpty, "no command runs after it: \(run.stdout)")
        #expect(run.exit["by"] as? String == "terminate", "\(run.exit)")
    }

    @Test func aCommandTheChildsStateRefusesIsALoggedNoOp() throws {
        let run = try Supervise.run(["--name", "w", "--", "sleep", "300"], stdin: "event w push\nstatus\nterminate\n", timeout: 20)
        #expect(run.status == 0, "\(run.stderr)")
        let errors = errorLines(run)
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(errors.first?.contains("stdin line 1: 'event w push': w: cannot deliver event 'push'") == true, "\(errors)")
        #expect(run.stdout.contains("\"state\":\"active\""), "the next command ran: \(run.stdout)")
    }

    @Test func keepGoingLogsTheMistakeAndRunsTheRest() throws {
        let run = try Supervise.run(["--keep-going", "--config", try twoChildren()],
                                    stdin: "background\nbakground\nstatus\nterminate all\n", timeout: 20)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(errorLines(run).count == 2, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 2, "status ran, one line per child: \(run.stdout)")
        #expect(!run.stderr.contains("terminating every child"), "\(run.stderr)")
    }
}

/// Commands typed at a terminal: a mistake is one error line, and the run goes on.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct TerminalCommandTests {
    @Test(.skip("script(1)", because: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") ? nil : "util-linux's script(1) is not installed",
                in: "TerminalCommandTests"))
    func aMistakeTypedAtATerminalIsOneLineAndEndsNothing() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(Supervise.binary) --name w -- sleep 300", "/dev/null"]
        let input = Pipe.closedOnExec()
        process.standardInput = input
        let text = CapturedOutput(of: process)
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        input.fileHandleForWriting.writeUnlessReaderEnded("foreground nobody\nstatus\n")
        #expect(eventually(timeout: 10) { text.stdout.contains("\"state\":\"active\"") }, "status ran after the mistake: \(text.stdout)")
        input.fileHandleForWriting.writeUnlessReaderEnded("terminate\n")
        #expect(eventually(timeout: 10) { !process.isRunning }, "\(text.stdout)")
        let errors = text.stdout.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 1, "\(text.stdout)")
        #expect(errors.first?.contains("stdin line 1: no child has that name (children: w)") == true, "\(errors)")
        #expect(!text.stdout.contains("terminating every child"), "\(text.stdout)")
        #expect(process.terminationStatus == 0, "\(text.stdout)")
    }
}
