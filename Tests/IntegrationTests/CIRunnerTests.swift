import Foundation
import Testing
import SuperviseTestSupport

/// The results on a CI runner, as a team reads them (issue 28): the documented `sudo supervise …`
/// route, annotations asked for by option, the JUnit suite's name and every case's output, read
/// by a real JUnit consumer (junitparser, from PyPI).
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct CIRunnerTests {
    let temporary = TemporaryDirectory()
    var junitPath: String { temporary.file("junit.xml") }

    func config(_ name: String, _ text: String) throws -> String {
        let path = temporary.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A child that holds its task past the limit (an expiry violation) and one that exits 0.
    var twoChildren: String {
        """
        window = "0.3s"
        limit = "1s"
        expiry-warning = "0.3s"

        [child.good]
        command = ["sh", "-c", "sleep 0.3"]

        [child.bad]
        command = ["\(Supervise.worker("aware-worker.sh"))"]
        env = { WORKER_ON_BACKGROUND = "hold" }
        aware = true
        """
    }
    /// `wait active` first: the window is short, and bash may say hello after it on a loaded machine.
    let holdScript = "wait active bad timeout=20s\nbackground bad\nwait exited bad timeout=10s\n"

    // MARK: Annotations

    /// sudo drops GITHUB_ACTIONS: `--annotations github` asks for them whatever the environment.
    @Test func annotationsAskedForByOptionNeedNoGitHubActions() throws {
        let path = try config("ci.toml", twoChildren)
        let run = try Supervise.run(["--config", path, "--annotations", "github"], stdin: holdScript,
                                    environment: ["GITHUB_ACTIONS": ""])
        #expect(run.status == 124, "\(run.stderr)")
        let annotations = run.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }
        #expect(annotations.count == 1, "\(run.stdout)")
        #expect(annotations.first?.hasPrefix("::error title=supervise%3A bad,file=\(path),line=8::expiry violation at ") == true,
                "\(run.stdout)")
    }

    /// An expected failure, checked by the job itself: no annotation though GitHub Actions runs it.
    @Test func annotationsNoneSilencesThemUnderGitHubActions() throws {
        let path = try config("ci.toml", twoChildren)
        let run = try Supervise.run(["--config", path, "--annotations", "none"], stdin: holdScript,
                                    environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(!run.stdout.contains("::error"), "\(run.stdout)")
    }

    /// A relative `--config` is annotated with its absolute path, which the runner makes relative
    /// to the repository whatever the step's working directory.
    @Test func aRelativeConfigPathIsAnnotatedAbsolute() throws {
        _ = try config("ci.toml", twoChildren)
        let script = "cd \(ShellScript.quoted(temporary.path)) && exec \(ShellScript.quoted(Supervise.binary)) "
            + "--config ./ci.toml --annotations github"
        let run = try ShellScript.run(script, stdin: holdScript)
        #expect(run.status == 124, "\(run.stderr)")
        let real = try #require(realpath(temporary.path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        })
        #expect(run.stdout.contains(",file=\(real)/./ci.toml,line=8::"), "\(run.stdout)")
    }

    @Test(arguments: [
        (["--annotations", "gitlab"], "error: The value 'gitlab' is invalid for '--annotations <format>'"),
        (["--junit-suite", "x"], "error: --junit-suite names the JUnit results: give --junit FILE too"),
    ])
    func badCIOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try Supervise.run(arguments + ["--", "true"])
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    // MARK: JUnit

    @Test func theSuiteIsNamedByOptionElseByTheConfigFileElseByTheChild() throws {
        let path = try config("nightly.toml", "[child.web]\ncommand = [\"true\"]\n")
        for (arguments, suite) in [(["--config", path], "nightly"), (["--config", path, "--junit-suite", "run 2"], "run 2"),
                                   (["--name", "web", "--", "true"], "web"), (["--", "true"], "true")] {
            let run = try Supervise.run(["--junit", junitPath] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let xml = try String(contentsOfFile: junitPath, encoding: .utf8)
            #expect(xml.contains("<testsuite name=\"\(suite)\"") && xml.contains("classname=\"\(suite)\""), "\(arguments): \(xml)")
        }
    }

    /// A python3 that can import junitparser (scripts/setup-debian.sh installs it into the system's).
    static let junitparserPython: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { python in
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? ShellScript.run("exec \(python) -c 'import junitparser'", stdin: ""))?.status == 0
    }

    /// junitparser, as CI reporters read JUnit, finds the suite's name, every case's classname, its
    /// output (a passing case too) and the failure.
    @Test(.enabled(if: junitparserPython != nil, "junitparser is not installed for python3 (scripts/setup-debian.sh installs it)"))
    func junitparserReadsTheSuiteTheCasesTheirOutputAndTheFailure() throws {
        let path = try config("lifecycle.toml", twoChildren)
        let run = try Supervise.run(["--config", path, "--junit", junitPath], stdin: holdScript)
        #expect(run.status == 124, "\(run.stderr)")
        let reader = """
            import json, sys
            from junitparser import JUnitXml, Failure
            xml = JUnitXml.fromfile(sys.argv[1])
            suites = [xml] if xml._tag == "testsuite" else list(xml)
            print(json.dumps([{"suite": suite.name, "tests": suite.tests, "failures": suite.failures, "cases": [
                {"name": case.name, "classname": case.classname, "out": case.system_out,
                 "failures": [(result.type, result.message) for result in case.result if isinstance(result, Failure)]}
                for case in suite]} for suite in suites]))
            """
        let read = try ShellScript.run("exec \(Self.junitparserPython!) -c \(ShellScript.quoted(reader)) \(ShellScript.quoted(junitPath))",
                                       stdin: "")
        #expect(read.status == 0, "\(read.stderr)")
        let suites = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: Any]], "\(read.stdout)")
        #expect(suites.count == 1)
        let suite = try #require(suites.first)
        #expect(suite["suite"] as? String == "lifecycle")
        #expect(suite["tests"] as? Int == 2 && suite["failures"] as? Int == 1, "\(suite)")
        let cases = try #require(suite["cases"] as? [[String: Any]])
        #expect(cases.map { $0["name"] as? String } == ["good", "bad"])
        #expect(cases.allSatisfy { $0["classname"] as? String == "lifecycle" }, "\(cases)")
        let good = try #require(cases.first?["out"] as? String, "a passing case has its output: \(cases)")
        #expect(good.hasPrefix("good: exited with 0") && good.contains("state: exited"), "\(good)")
        #expect((cases.first?["failures"] as? [Any])?.isEmpty == true)
        let bad = try #require(cases.last?["out"] as? String)
        #expect(bad.contains("violation: expiry violation: killed"), "\(bad)")
        let failures = try #require(cases.last?["failures"] as? [[Any]])
        #expect(failures.count == 1 && failures.first?.first as? String == "violation", "\(failures)")
        #expect((failures.first?.last as? String)?.hasPrefix("expiry violation at ") == true, "\(failures)")
    }

    // MARK: sudo

    /// Run as sudo runs it (root, with the invoking user's SUDO_UID and SUDO_GID), the result files
    /// are that user's: it can read them, as upload-artifact and JUnit reporters will.
    @Test(.enabled(if: TestUser.missingReason == nil, "\(TestUser.missingReason ?? "")"))
    func underSudoTheResultFilesAreTheInvokingUsers() throws {
        let user = try #require(getpwnam(TestUser.name)).pointee
        #expect(chmod(temporary.path, 0o755) == 0, "the user may enter the directory")
        let html = temporary.file("run.html")
        let run = try Supervise.run(["--junit", junitPath, "--html", html, "--name", "ok", "--", "true"],
                                    environment: ["SUDO_UID": "\(user.pw_uid)", "SUDO_GID": "\(user.pw_gid)", "SUDO_USER": TestUser.name])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.report != nil, "the report (in the test's own directory) was written")
        for file in [junitPath, html] {
            var info = stat()
            #expect(lstat(file, &info) == 0)
            #expect(info.st_uid == user.pw_uid && info.st_gid == user.pw_gid, "\(file): \(info.st_uid):\(info.st_gid)")
            #expect(info.st_mode & 0o777 == 0o600, "readable by its owner only, as ever")
            let read = try ShellScript.run("exec runuser -u \(TestUser.name) -- cat \(ShellScript.quoted(file))", stdin: "")
            #expect(read.status == 0, "\(file): \(read.stderr)")
            #expect(read.stdout.contains("ok"), "\(file)")
        }
    }

    /// Without sudo's variables the files stay root's, as before.
    @Test(.enabled(if: getuid() == 0, "the supervisor must run as root"))
    func withoutSudoTheResultFilesStayTheSupervisors() throws {
        let run = try Supervise.run(["--junit", junitPath, "--name", "ok", "--", "true"],
                                    environment: ["SUDO_UID": "", "SUDO_GID": ""])
        #expect(run.status == 0, "\(run.stderr)")
        var info = stat()
        #expect(lstat(junitPath, &info) == 0 && info.st_uid == 0)
    }
}
