import Foundation
import Testing
import SuperviseTestSupport

/// `supervise report FILE --html OUT`: the subcommand's dispatch, its exit statuses and its one-line errors.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ReportCommandTests {
    let temporary = TemporaryDirectory(prefix: "supervise-report")

    /// Runs the binary with exactly `arguments` (no `--report` added); its status, stdout and stderr.
    func supervise(_ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Supervise.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let output = CapturedOutput(of: process)
        try process.run()
        process.waitUntilExit()
        output.expectEnd(of: "supervise \(arguments.joined(separator: " "))", timeout: 5)
        return (process.terminationStatus, output.stdout, output.stderr)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = temporary.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func thePageDrawnFromTheReportIsThePageTheRunWrote() throws {
        let report = temporary.file("run.json"), atRunTime = temporary.file("run.html"), later = temporary.file("later.html")
        let run = try supervise(["--window", "0.3", "--report", report, "--html", atRunTime, "--", "sh", "-c", "sleep 0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        let drawn = try supervise(["report", report, "--html", later])
        #expect(drawn.status == 0 && drawn.stderr.isEmpty && drawn.stdout.isEmpty, "\(drawn.stderr)")
        let page = try String(contentsOfFile: atRunTime, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("data-child=\"sh\""))
        #expect(try String(contentsOfFile: later, encoding: .utf8) == page)
    }

    /// `sudo supervise report …` leaves the page to the user who ran it, as a run's own results.
    @Test(.enabled(if: TestUser.missingReason == nil, "\(TestUser.missingReason ?? "")"))
    func underSudoThePageIsTheInvokingUsers() throws {
        let user = try #require(getpwnam(TestUser.name)).pointee
        let report = temporary.file("run.json"), page = temporary.file("run.html")
        #expect(try supervise(["--report", report, "--", "true"]).status == 0)
        let drawn = try supervise(["report", report, "--html", page],
                                  environment: ["SUDO_UID": "\(user.pw_uid)", "SUDO_GID": "\(user.pw_gid)"])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        var info = stat()
        #expect(lstat(page, &info) == 0 && info.st_uid == user.pw_uid && info.st_gid == user.pw_gid)
    }

    @Test(arguments: [
        ("missing.json", "cannot read the report 'DIR/missing.json': no such file or directory"),
        ("", "cannot read the report 'DIR': it is a directory, not a regular file"),
        ("bad.json", "the report 'DIR/bad.json' is not JSON: unexpected ']', expected a value at line 1, column 17"),
        ("list.json", "the report 'DIR/list.json' can't be drawn: not a supervise report: the JSON is not an object"),
        // It trapped (SIGILL, exit 132) converting 1e300 to an Int (issue 24).
        ("huge.json", "the report 'DIR/huge.json' can't be drawn: not a supervise report: its \"exit_status\" is not a status from 0 to 255"),
    ])
    func anUnreadableOrMalformedReportExits2WithOneLine(_ name: String, _ message: String) throws {
        _ = try write("bad.json", "{\"children\": [1,]}")
        _ = try write("list.json", "[]")
        _ = try write("huge.json", "{\"exit_status\": 1e300, \"children\": []}")
        let out = temporary.file("out.html")
        let run = try supervise(["report", temporary.file(name), "--html", out])
        let expected = message.replacingOccurrences(of: "DIR", with: temporary.path)
        #expect(run.status == 2)
        #expect(run.stderr == "supervise report: error: \(expected) (see 'supervise report --help')\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(arguments: [[], ["run.json"], ["--html", "x.html"], ["run.json", "--html", "x.html", "--window", "1"]])
    func aBadArgumentExits2WithOneLine(_ arguments: [String]) throws {
        let run = try supervise(["report"] + arguments)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("supervise report: error: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test func aPageThatCantBeWrittenThereIsAUsageError() throws {
        let report = try write("run.json", "{\"children\": []}")
        let run = try supervise(["report", report, "--html", temporary.file("no/such/dir/run.html")])
        #expect(run.status == 2)
        #expect(run.stderr == "supervise report: error: --html '\(temporary.file("no/such/dir/run.html"))': its directory "
                + "'\(temporary.file("no/such/dir"))' can't be used: no such file or directory (see 'supervise report --help')\n")
    }

    @Test func thePageCanNotReplaceTheReportItIsDrawnFrom() throws {
        let report = try write("run.json", "{\"children\": []}")
        let run = try supervise(["report", report, "--html", report])
        #expect(run.status == 2)
        #expect(run.stderr == "supervise report: error: --html '\(report)' is the report it is drawn from; give the page "
                + "a file of its own (see 'supervise report --help')\n")
        #expect(try String(contentsOfFile: report, encoding: .utf8) == "{\"children\": []}")
    }

    @Test func theSubcommandHasItsOwnHelpAndTheRootListsIt() throws {
        let help = try supervise(["report", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: supervise report FILE --html FILE") && help.stdout.contains("EXIT STATUS"), "\(help.stdout)")
        let root = try supervise(["--help"])
        #expect(root.stdout.contains("supervise report FILE --html FILE"), "\(root.stdout)")
        for output in [help.stdout, root.stdout] {
            for line in output.split(separator: "\n") { #expect(line.count <= 80, "over 80 columns: \(line)") }
        }
    }

    /// After `--`, `report` is the child's program, not the subcommand: here one that doesn't exist (127).
    @Test func aProgramCalledReportAfterTheTerminatorStillRuns() throws {
        let run = try supervise(["--", "report", "run.json", "--html", "x.html"])
        #expect(run.status == 127, "\(run.stderr)")
        #expect(!run.stderr.contains("supervise report:"), "\(run.stderr)")
    }
}
