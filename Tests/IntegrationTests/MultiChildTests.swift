import Foundation
import Testing
import SuperviseTestSupport

/// Several named children from a config file.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct MultiChildTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    func config(_ text: String) throws -> String {
        let path = directory.appendingPathComponent("supervise.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func children(_ run: SuperviseRun) -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for child in run.report?["children"] as? [[String: Any]] ?? [] { result[child["name"] as? String ?? ""] = child }
        return result
    }

    func states(_ child: [String: Any]?) -> [String] {
        (child?["timeline"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "state" }.compactMap { $0["text"] as? String }
    }

    @Test func childrenAreMovedByNameAndAll() throws {
        let path = try config("""
            window = "0.3s"
            [child.api]
            command = ["sleep", "30"]
            [child.queue]
            command = ["sleep", "30"]
            """)
        // --keep-going: the unnamed `wait` below is refused, and the script goes on.
        let run = try Supervise.run(["--keep-going", "--config", path], stdin: """
            background api
            wait suspended api
            status
            background all
            wait suspended
            wait suspended all
            foreground all
            wait active all
            terminate all

            """)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "one status line per child")
        #expect(lines.first?.contains("\"name\":\"api\"") == true && lines.first?.contains("\"state\":\"suspended\"") == true)
        #expect(lines.last?.contains("\"name\":\"queue\"") == true && lines.last?.contains("\"state\":\"active\"") == true)
        let report = children(run)
        #expect(states(report["api"]) == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"])
        #expect(states(report["queue"]) == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"])
        #expect(run.stderr.contains("name a child or 'all'"), "unnamed 'wait' with two children is refused")
    }

    @Test func oneChildsViolationKillsOnlyThatChild() throws {
        let worker = Supervise.worker("aware-worker.sh")
        let path = try config("""
            window = "0.3s"
            limit = "1s"
            expiry-warning = "0.3s"
            aware = true
            [child.good]
            command = ["\(worker)"]
            env = { WORKER_ON_BACKGROUND = "done" }
            [child.bad]
            command = ["\(worker)"]
            env = { WORKER_ON_BACKGROUND = "hold" }
            """)
        let run = try Supervise.run(["--config", path],
                                    stdin: "wait active all timeout=20s\nbackground all\nwait exited bad timeout=10s\nwait suspended good\nstatus\nterminate all\n")
        #expect(run.status == 124, "\(run.stderr)")
        let report = children(run)
        #expect((report["bad"]?["violations"] as? [Any])?.count == 1)
        #expect((report["good"]?["violations"] as? [Any])?.isEmpty == true)
        #expect((report["good"]?["exit"] as? [String: Any])?["by"] as? String == "terminate")
        #expect(run.stdout.contains("\"name\":\"good\",\"pid\""))
    }

    @Test func outputIsPrefixedAndLinesAreNotSplit() throws {
        let path = try config("""
            [child.a]
            command = ["sh", "-c", "for i in 1 2 3 4 5; do printf 'alpha '; sleep 0.01; echo $i; done"]
            [child.long-name]
            command = ["sh", "-c", "for i in 1 2 3 4 5; do printf 'beta ' >&2; sleep 0.01; echo $i >&2; done"]
            """)
        let run = try Supervise.run(["--config", path, "--log-level", "warning"])
        #expect(run.status == 0, "\(run.stderr)")
        let out = run.stdout.split(separator: "\n").map(String.init)
        #expect(out == (1...5).map { "a         | alpha \($0)" })
        let err = run.stderr.split(separator: "\n").map(String.init)
        #expect(err == (1...5).map { "long-name | beta \($0)" })
        let plain = try Supervise.run(["--config", path, "--log-level", "warning", "--no-prefix"])
        #expect(plain.stdout.split(separator: "\n").first == "alpha 1")
    }

    @Test func failingChildIsRestartedWithBackOff() throws {
        let path = try config("""
            [child.flaky]
            command = ["sh", "-c", "exit 3"]
            restart = "on-failure"
            restart-delay = "0.2s"
            restart-delay-max = "0.4s"
            [child.steady]
            command = ["sleep", "30"]
            """)
        let run = try Supervise.run(["--config", path], stdin: "sleep 1.5\nterminate all\n")
        #expect(run.status == 3)
        let flaky = try #require(children(run)["flaky"])
        let runs = try #require(flaky["runs"] as? [[String: Any]])
        // Runs at about 0, 0.2, 0.6, 1.0, 1.4 s: the delay doubles from 0.2 s up to 0.4 s.
        #expect((3...6).contains(runs.count), "runs: \(runs.count)")
        let times = runs.compactMap { ($0["exit"] as? [String: Any])?["at_ms"] as? Double }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.first.map { $0 >= 190 } == true, "first restart waits restart-delay: \(gaps)")
        #expect(gaps.dropFirst().allSatisfy { $0 >= 390 }, "later restarts wait restart-delay-max: \(gaps)")
        #expect((children(run)["steady"]?["runs"] as? [Any])?.count == 1)
    }

    @Test func hundredChildrenAreAllSuspendedAndResumed() throws {
        var text = "window = \"0\"\n"
        for index in 0..<100 { text += "[child.w\(index)]\ncommand = [\"sleep\", \"60\"]\n" }
        let run = try Supervise.run(["--config", try config(text), "--log-level", "warning"],
                                    stdin: "background all\nwait suspended all timeout=20s\nforeground all\nwait active all timeout=20s\nterminate all\n",
                                    timeout: 60)
        #expect(run.status == 0, "\(run.stderr)")
        let report = children(run)
        #expect(report.count == 100)
        #expect(report.values.allSatisfy { states($0).contains("suspended") && states($0).last == "exited" })
    }

    @Test func configErrorsExitWith2BeforeLaunching() throws {
        let path = try config("""
            [child.api]
            command = ["touch", "\(directory.appendingPathComponent("launched").path)"]
            windw = "5s"
            """)
        let run = try Supervise.run(["--config", path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("windw"))
        #expect(run.stderr.contains(":3"), "names the line: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("launched").path))
    }
}
