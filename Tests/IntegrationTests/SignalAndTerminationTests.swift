import Foundation
import Testing
import SuperviseTestSupport

/// Signals to the supervisor, the termination ladder, and exit statuses.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct SignalAndTerminationTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }
    var log: String { directory.appendingPathComponent("events.log").path }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test(arguments: Backend.usable(in: "SignalAndTerminationTests"))
    func usr1BackgroundsAndUsr2ForegroundsAndTermTerminates(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--control", "none", "--", Supervise.worker("aware-worker.sh")],
                                    environment: ["WORKER_LOG": log]) { process in
            #expect(eventually { events().contains("did-become-active") })
            kill(process.processIdentifier, SIGUSR1)
            #expect(eventually { events().contains("did-enter-background 1 5000 30000") })
            // The worker answers done: foreground from suspended, once the kernel shows the freeze.
            #expect(SupervisedChild(backend: backend, supervisorPID: process.processIdentifier).waitFrozen())
            kill(process.processIdentifier, SIGUSR2)
            #expect(eventually { events().filter { $0 == "did-become-active" }.count == 2 })
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(events().last == "will-terminate 5000")
        #expect(run.exit["by"] as? String == "terminate")
        #expect(run.exit["in_time"] as? Bool == true)
    }

    @Test func unawareChildIgnoringSIGTERMIsKilledAfterTheGrace() throws {
        let run = try Supervise.run(["--grace", "0.5", "--", "sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"],
                                    stdin: "sleep 0.2\nterminate\n")
        #expect(run.status == 137, "\(run.stderr)")
        #expect(run.exit["by"] as? String == "kill")
        #expect(run.exit["in_time"] as? Bool == false)
        let terminating = try #require(run.time(of: "state", "terminating"))
        let exited = try #require(run.time(of: "state", "exited"))
        #expect(exited - terminating >= 500)
        #expect(exited - terminating < 3000)
    }

    @Test func secondSIGTERMKillsAtOnce() throws {
        let run = try Supervise.run(["--grace", "20", "--control", "none", "--", "sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"],
                                    timeout: 10) { process in
            // The first SIGTERM must find the trap set, or it ends the child with 143.
            let child = SupervisedChild(backend: .sigstop, supervisorPID: process.processIdentifier)
            #expect(eventually { child.pid.map { ProcessInspector.ignores(SIGTERM, $0) } == true })
            kill(process.processIdentifier, SIGTERM)
            // Kept: the test is about a second signal during the grace, so the supervisor must have
            // begun terminating (forwarded SIGTERM to a child that ignores it): nothing outside shows that.
            Thread.sleep(forTimeInterval: 0.3)
            kill(process.processIdentifier, SIGINT)
        }
        #expect(run.status == 137)
        #expect(run.exit["by"] as? String == "kill")
        #expect(run.elapsed < 8)
    }

    @Test func exitStatusIsPassedThrough() throws {
        #expect(try Supervise.run(["--", "sh", "-c", "exit 7"]).status == 7)
        let killed = try Supervise.run(["--", "sh", "-c", "kill -9 $$"])
        #expect(killed.status == 137)
        #expect(killed.exit["by"] as? String == "self")
        #expect(try Supervise.run(["--", "true"]).status == 0)
    }

    @Test func execFailuresAre127And126() throws {
        let missing = try Supervise.run(["--", "no-such-program-\(getpid())"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("no-such-program"))
        let file = directory.appendingPathComponent("not-executable").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("#!/bin/sh\n".utf8))
        let notExecutable = try Supervise.run(["--", file])
        #expect(notExecutable.status == 126)
        #expect(notExecutable.exit["status"] as? Int == 126)
    }

    @Test func waitThatTimesOutFailsTheRunWith123() throws {
        let run = try Supervise.run(["--", "sleep", "30"], stdin: "wait suspended timeout=0.3s\nterminate\n")
        #expect(run.status == 123)
        #expect(run.stderr.contains("timed out"))
    }

    @Test func waitForAStateAnExitedChildCanNotReachFails() throws {
        let run = try Supervise.run(["--", "sh", "-c", "sleep 0.2"], stdin: "wait suspended timeout=20s\n")
        #expect(run.status == 123)
        #expect(run.elapsed < 10)
    }

    /// A child told to terminate can only exit: a wait for another state fails as soon as it is
    /// judged, not once the child has used its grace (issue 28: it held until the exit).
    @Test func waitForAStateATerminatingChildCanNotReachFails() throws {
        let worker = "trap 'sleep 2; exit 0' TERM; while :; do sleep 0.1; done"
        let run = try Supervise.run(["--grace", "10", "--name", "w", "--", "sh", "-c", worker],
                                    stdin: "sleep 500ms\nterminate\nwait suspended timeout=20s\n")
        #expect(run.status == 123, "\(run.stderr)")
        #expect(run.stderr.contains("'wait suspended timeout=20s': w is terminating and was told to terminate: it can't become suspended"),
                "\(run.stderr)")
    }

    @Test func endOfInputDoesNotStopTheChild() throws {
        let run = try Supervise.run(["--", "sh", "-c", "sleep 0.5; exit 3"], stdin: "")
        #expect(run.status == 3)
        #expect(run.elapsed >= 0.5)
    }

    @Test func statusPrintsOneJSONLinePerChild() throws {
        let run = try Supervise.run(["--name", "w", "--", "sleep", "30"], stdin: "status\nterminate\n")
        let line = try #require(run.stdout.split(separator: "\n").first)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(status["name"] as? String == "w")
        #expect(status["state"] as? String == "active")
        #expect((status["pid"] as? Int ?? 0) > 0)
        #expect(status["tasks"] as? [Any] != nil)
    }

    /// With `--keep-going`; without it, a script ends at its first mistake (ScriptFailFastTests).
    @Test func badCommandsPrintOneLineAndChangeNothing() throws {
        let run = try Supervise.run(["--keep-going", "--", "sleep", "30"], stdin: "bakground\nforeground nobody\nstatus\nterminate\n")
        let errors = run.stderr.split(separator: "\n").filter { $0.contains("stdin line") }
        #expect(errors.count == 2)
        #expect(errors.first?.contains("'bakground'") == true)
        #expect(run.stdout.contains("\"state\":\"active\""))
        #expect(run.status == 0)
    }
}

/// The configurable stop signal and task limit.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct StopSignalAndTaskLimitTests {
    @Test func unawareChildGetsTheConfiguredStopSignal() throws {
        let script = "trap '' TERM; trap 'exit 0' INT; while :; do sleep 0.05; done"
        let run = try Supervise.run(["--stop-signal", "INT", "--grace", "5", "--", "sh", "-c", script],
                                    stdin: "sleep 0.2\nterminate\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.exit["by"] as? String == "terminate")
        #expect(run.elapsed < 4, "it exited on SIGINT, not at the end of the grace")
        let settings = try #require(run.child["settings"] as? [String: Any])
        #expect(settings["stop_signal"] as? Int == Int(SIGINT))
    }

    @Test func beginsOverTheTaskLimitAreRefused() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let log = temporary.file("events.log")
        let run = try Supervise.run(["--aware", "--max-tasks", "1", "--", Supervise.worker("aware-worker.sh")],
                                    stdin: "wait active timeout=20s\nsleep 0.5\nterminate\n",
                                    environment: ["WORKER_LOG": log, "WORKER_REQUESTS": "begin a|begin b"])
        let events = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(events.contains("error too-many-tasks begin b"))
        #expect(events.contains("expire b"))
        #expect(run.status == 0, "\(run.stderr)")
    }
}

/// `--control none` on a terminal: the child's process group gets the terminal, so reading it works.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct TerminalTests {
    @Test(.skip("script(1)", because: FileManager.default.isExecutableFile(atPath: "/usr/bin/script") ? nil : "util-linux's script(1) is not installed",
                in: "TerminalTests"))
    func childReadsTheTerminalWithControlNone() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(Supervise.binary) --log-level warning --control none -- sh -c 'read x; echo got:$x'", "/dev/null"]
        let input = Pipe.closedOnExec(), output = Pipe.closedOnExec()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Type once the child's shell waits on the terminal (it is the process running `read x`).
        #expect(eventually {
            ProcessInspector.descendants(of: process.processIdentifier).contains {
                $0.state == "S" && ProcessInspector.commandLine($0.pid).contains("read x")
            }
        })
        input.fileHandleForWriting.writeUnlessReaderEnded("typed\n")
        let exited = eventually(timeout: 10) { !process.isRunning }
        if !exited { process.terminate() }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(exited, "the child was stopped reading its terminal")
        #expect(text.contains("got:typed"), "\(text)")
        #expect(process.terminationStatus == 0)
    }
}
