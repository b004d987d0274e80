import Foundation
import Testing
import SuperviseTestSupport

/// Signals other than the control ones: forwarded to the child's main process (not to the rest
/// of its tree: ForwardTargetTests), or ignored, and never the supervisor's death.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct SignalForwardingTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }
    var log: String { directory.appendingPathComponent("signals.log").path }

    /// A Python child that logs every signal it is sent, and a `setsid` grandchild that does too,
    /// each line "main NUMBER" or "grandchild NUMBER".
    func worker() throws -> [String] {
        let script = """
            import os, signal, sys, time
            log = open(sys.argv[1], "a", buffering=1)
            role = "grandchild" if len(sys.argv) == 3 else "main"
            def note(number, frame): log.write(f"{role} {number}\\n")
            for number in [s for s in range(1, 65) if s not in (9, 17, 19, 32, 33)]:
                signal.signal(number, note)
            signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
            if len(sys.argv) == 2 and os.fork() == 0:
                # Out of the process group, and off the supervisor's output.
                os.setsid()
                quiet = os.open(os.devnull, os.O_WRONLY)
                os.dup2(quiet, 1)
                os.dup2(quiet, 2)
                os.execv(sys.executable, [sys.executable, __file__, sys.argv[1], "grandchild"])
            log.write(f"{role} ready\\n")
            while True: time.sleep(0.05)
            """
        let path = directory.appendingPathComponent("logger.py").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return ["python3", path, log]
    }

    func lines() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The signal numbers each process logged, by role.
    func received() -> [String: Set<String>] {
        var byProcess: [String: Set<String>] = [:]
        for line in lines() {
            let fields = line.split(separator: " ").map(String.init)
            if fields.count == 2 { byProcess[fields[0], default: []].insert(fields[1]) }
        }
        return byProcess
    }

    static let forwarded: [Int32] = [SIGQUIT, SIGABRT, SIGALRM, SIGVTALRM, SIGPROF, SIGPWR, SIGWINCH, SIGURG, SIGIO, 34, 50, 64]
    static let ignored: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT, SIGXCPU, SIGXFSZ]

    @Test(arguments: Backend.usable(in: "SignalForwardingTests"))
    func forwardedSignalsReachTheMainProcessAndIgnoredOnesChangeNothing(backend: Backend) throws {
        var supervisorState = "?"
        let run = try Supervise.run(["--freezer", backend.rawValue, "--control", "none", "--"] + worker()) { process in
            #expect(eventually { received().values.filter { $0.contains("ready") }.count == 2 }, "\(lines())")
            for signal in Self.forwarded {
                kill(process.processIdentifier, signal)
                #expect(eventually { received()["main", default: []].contains(String(signal)) }, "signal \(signal): \(received())")
            }
            for signal in Self.ignored {
                kill(process.processIdentifier, signal)
                // Kept: an ignored signal has no effect to wait for; this gives a wrong forward time to show.
                Thread.sleep(forTimeInterval: 0.05)
            }
            let expected = Set(Self.forwarded.map(String.init))
            #expect(eventually { expected.isSubset(of: received()["main", default: []]) },
                    "the main process gets every forwarded signal: \(received())")
            // Kept: a signal that went too far has no effect to wait for; this gives it time to show.
            Thread.sleep(forTimeInterval: 0.2)
            #expect(received()["grandchild"] == ["ready"], "the rest of the tree gets none, as from tini: \(received())")
            // Before the terminate: its stop signal is followed by a SIGCONT of the supervisor's own.
            let ignored = Set(Self.ignored.map(String.init))
            #expect(received().values.allSatisfy { $0.isDisjoint(with: ignored) }, "ignored signals are not forwarded: \(received())")
            let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
            supervisorState = stat.split(separator: ")").last.map { String($0.dropFirst().prefix(1)) } ?? "?"
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(supervisorState != "T", "SIGTSTP/SIGTTIN/SIGTTOU must not stop the supervisor")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.report != nil, "the report is written")
        #expect(run.timeline("note").contains("forwarded SIGQUIT to its main process"), "\(run.timeline("note"))")
        // As the docs and --help name it (glibc's name is SIGPOLL).
        #expect(run.timeline("note").contains("forwarded SIGIO to its main process"), "\(run.timeline("note"))")
    }

    @Test func aForwardedSignalThatKillsTheChildEndsTheRunWithItsStatus() throws {
        let run = try Supervise.run(["--control", "none", "--", "sleep", "30"]) { process in
            // Signal once the child is sleep itself (before its exec it is a copy of the supervisor).
            let child = SupervisedChild(backend: .sigstop, supervisorPID: process.processIdentifier)
            #expect(eventually { child.pid.map { ProcessInspector.commandLine($0) == "sleep 30" } == true })
            kill(process.processIdentifier, SIGALRM)
        }
        #expect(run.status == 128 + SIGALRM, "\(run.stderr)")
        #expect(run.exit["description"] as? String == "killed by SIGALRM (14)")
        #expect(run.report != nil)
    }
}
