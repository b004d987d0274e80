import Glibc
import Logging
import SystemPackage
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// The report file and the log never let input reach where it must not.
@Suite(.timeLimit(.minutes(5))) struct ReportSafetyTests {
    @Test(arguments: [("a\u{1B}[2Jb", "a\\u001b[2Jb"), ("x\rsupervise: y: suspended", "x\\rsupervise: y: suspended"),
                      ("bell\u{07}", "bell\\u0007"), ("two\nlines", "two\\nlines"), ("del\u{7F}", "del\\u007f"),
                      ("csi\u{9B}", "csi\\u009b"), ("plain é", "plain é")])
    func controlCharactersAreEscaped(text: String, expected: String) {
        #expect(ControlEscapes.escaped(text) == expected)
    }

    @Test func jsonStringsEscapeTheSameControls() {
        #expect(JSONValue.string("a\u{1B}\"b\n").serialized() == "\"a\\u001b\\\"b\\n\"")
    }

    func failure(_ result: Result<Void, Errno>) -> Errno? {
        if case .failure(let error) = result { error } else { nil }
    }

    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory(prefix: "supervise-report")

    @Test func aLinkPlacedBesideTheReportIsNeverFollowed() throws {
        let directory = temporary.path
        let victim = directory + "/victim"
        #expect(failure(ReportFile.write("secret\n", to: victim)) == nil)
        // The old scheme's predictable name, and a FIFO, planted where a report will go.
        symlink(victim, directory + "/run.json.tmp-\(getpid())")
        mkfifo(directory + "/.run.json.fifo", 0o644)
        #expect(failure(ReportFile.write("{}\n", to: directory + "/run.json")) == nil)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
        #expect(try String(contentsOfFile: directory + "/run.json", encoding: .utf8) == "{}\n")
        var info = stat()
        #expect(lstat(directory + "/run.json", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func aReportOverASymlinkReplacesTheLinkNotItsTarget() throws {
        let directory = temporary.path
        let victim = directory + "/victim"
        #expect(failure(ReportFile.write("secret\n", to: victim)) == nil)
        symlink(victim, directory + "/run.json")
        #expect(failure(ReportFile.write("{}\n", to: directory + "/run.json")) == nil)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
    }

    @Test func aMissingDirectoryIsAnError() {
        #expect(failure(ReportFile.write("{}\n", to: "/nonexistent-supervise-dir/run.json")) == .noSuchFileOrDirectory)
    }
}
