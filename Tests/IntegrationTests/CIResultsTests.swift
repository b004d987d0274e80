import Foundation
import FoundationXML
import Testing
import SuperviseTestSupport

/// `--junit FILE` and the GitHub annotations, through the real binary.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct CIResultsTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var junitPath: String { temporary.file("junit.xml") }

    func config(_ text: String) throws -> String {
        let path = temporary.file("ci-check.toml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The JUnit file, checked well-formed (``xmlWellFormednessError(_:)``) and named `suite` (the
    /// suite and every classname); its test cases by name.
    func testCases(suite suiteName: String) throws -> [String: XMLElement] {
        let text = try String(contentsOfFile: junitPath, encoding: .utf8)
        #expect(xmlWellFormednessError(text) == nil, "\(text)")
        let document = try XMLDocument(xmlString: text, options: [])
        let suite = try #require(document.rootElement())
        #expect(suite.name == "testsuite")
        #expect(suite.attribute(forName: "name")?.stringValue == suiteName)
        var cases: [String: XMLElement] = [:]
        for element in suite.elements(forName: "testcase") {
            cases[element.attribute(forName: "name")?.stringValue ?? ""] = element
            #expect(element.attribute(forName: "classname")?.stringValue == suiteName)
        }
        return cases
    }

    @Test func anExpiryKillFailsItsChildsCaseNamingTheTaskAndIsAnnotated() throws {
        let path = try config("""
            window = "0.3s"
            limit = "1s"
            expiry-warning = "0.3s"
            [child.bad]
            command = ["\(Supervise.worker("aware-worker.sh"))"]
            env = { WORKER_ON_BACKGROUND = "hold" }
            aware = true
            [child.good]
            command = ["sh", "-c", "sleep 0.3"]
            """)
        let run = try Supervise.run(["--config", path, "--junit", junitPath],
                                    stdin: "wait active bad timeout=20s\nbackground bad\nwait exited bad timeout=10s\n",
                                    environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 124, "\(run.stderr)")
        let cases = try testCases(suite: "ci-check")
        #expect(cases.count == 2)
        #expect(cases["good"]?.elements(forName: "failure").isEmpty == true)
        let good = try #require(cases["good"]?.attribute(forName: "time")?.stringValue.flatMap(Double.init))
        #expect(good >= 0.25, "the time the child ran")
        let failures = try #require(cases["bad"]?.elements(forName: "failure"))
        #expect(failures.count == 1)
        let message = try #require(failures.first?.attribute(forName: "message")?.stringValue)
        #expect(message.hasPrefix("expiry violation") && message.contains("task t1 (upload)"), "\(message)")
        #expect(failures.first?.attribute(forName: "type")?.stringValue == "violation")
        #expect(failures.first?.stringValue?.contains("request: begin t1 upload") == true, "the last protocol lines")
        let annotations = run.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }
        #expect(annotations.count == 1, "\(run.stdout)")
        // On the line of [child.bad] in the config file, the title's colon escaped as GitHub's toolkit does.
        #expect(annotations.first?.hasPrefix("::error title=supervise%3A bad,file=\(path),line=4::expiry violation at ") == true,
                "\(run.stdout)")
    }

    @Test func aFailedWaitFailsTheChildItWaitedFor() throws {
        let run = try Supervise.run(["--junit", junitPath, "--name", "sleeper", "--", "sleep", "30"],
                                    stdin: "wait suspended timeout=0.3s\nterminate\n",
                                    environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 123, "\(run.stderr)")
        let failure = try #require(try testCases(suite: "sleeper")["sleeper"]?.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "type")?.stringValue == "wait")
        #expect(failure.attribute(forName: "message")?.stringValue
            == "stdin line 1 'wait suspended timeout=0.3s': timed out: sleeper is active")
        #expect(run.stdout.contains("::error title=supervise%3A sleeper::stdin line 1 "), "\(run.stdout)")
    }

    /// A mistake that ends a scripted run (123) is a failing case of its own: never an all-green 123.
    @Test func aScriptMistakeThatEndsTheRunFailsItsOwnCase() throws {
        let run = try Supervise.run(["--junit", junitPath, "--name", "sleeper", "--", "sleep", "30"],
                                    stdin: "# filler\nbakground\n", environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 123, "\(run.stderr)")
        let cases = try testCases(suite: "sleeper")
        #expect(cases["sleeper"]?.elements(forName: "failure").isEmpty == true, "terminated as asked: it passes")
        let failure = try #require(cases["stdin line 2"]?.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "type")?.stringValue == "command")
        #expect(failure.attribute(forName: "message")?.stringValue?.hasPrefix("stdin line 2 'bakground': ") == true)
        #expect(run.stdout.contains("::error title=supervise%3A stdin line 2::stdin line 2 'bakground': "), "\(run.stdout)")
    }

    @Test func withoutGitHubActionsAFailureIsNotAnnotated() throws {
        let run = try Supervise.run(["--junit", junitPath, "--name", "sleeper", "--", "sleep", "30"],
                                    stdin: "wait suspended timeout=0.3s\nterminate\n",
                                    environment: ["GITHUB_ACTIONS": "false"])
        #expect(run.status == 123, "\(run.stderr)")
        #expect(try testCases(suite: "sleeper")["sleeper"]?.elements(forName: "failure").count == 1)
        #expect(!run.stdout.contains("::error"), "\(run.stdout)")
    }

    @Test func aChildThatCouldNotBeStartedSaysWhy() throws {
        let missing = temporary.file("no-such-program")
        let run = try Supervise.run(["--junit", junitPath, "--", missing], stdin: "")
        #expect(run.status == 127, "\(run.stderr)")
        let failure = try #require(try testCases(suite: "no-such-program")["no-such-program"]?.elements(forName: "failure").first)
        let message = try #require(failure.attribute(forName: "message")?.stringValue)
        #expect(message.hasPrefix("could not be started: ") && message.contains(missing)
                && message.contains("No such file or directory"), "\(message)")
        #expect(failure.attribute(forName: "type")?.stringValue == "exit")
    }

    @Test func aChildExitingZeroPasses() throws {
        let run = try Supervise.run(["--junit", junitPath, "--name", "ok", "--", "true"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(run.status == 0, "\(run.stderr)")
        let cases = try testCases(suite: "ok")
        #expect(cases.keys.sorted() == ["ok"])
        #expect(cases["ok"]?.elements(forName: "failure").isEmpty == true)
        #expect(!run.stdout.contains("::error"), "\(run.stdout)")
    }
}
