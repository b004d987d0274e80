import Foundation
import Testing
import SuperviseTestSupport

/// `--report`, `--junit` and `--html` are checked before anything is launched (exit 2, one line),
/// and a result file that still can't be written at the end fails the run (125): a CI job never
/// goes green without the results it asked for.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ResultDestinationTests {
    let temporary = TemporaryDirectory()
    var directory: String { temporary.path }
    var marker: String { temporary.file("launched") }

    /// Runs supervise with `arguments` and a child that would leave `marker`; stdin is empty.
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try ShellScript.run(([Supervise.binary] + arguments + ["--", "touch", marker]).map(ShellScript.quoted)
            .joined(separator: " "), stdin: "")
    }

    func expectRefused(_ arguments: [String], saying message: String) throws {
        let run = try run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr == "supervise: error: \(message) (see 'supervise --help')\n", "\(arguments)")
        #expect(!FileManager.default.fileExists(atPath: marker), "\(arguments): the child was launched")
    }

    @Test func aDestinationThatCanNotTakeAFileIsAUsageError() throws {
        try expectRefused(["--report", "/nonexistent/dir/r.json"],
                          saying: "--report '/nonexistent/dir/r.json': its directory '/nonexistent/dir' can't be used: no such file or directory")
        try expectRefused(["--junit", directory], saying: "--junit '\(directory)': it is a directory; give a file's path")
        try expectRefused(["--html", "/proc/run.html"],
                          saying: "--html '/proc/run.html': cannot create a file in '/proc': no such file or directory")
    }

    /// Made in the test's directory, not taken from /dev: were the check gone, a device of the
    /// machine's own would be replaced.
    @Test func aDeviceAFIFOOrALinkIsNeverReplaced() throws {
        let fifo = temporary.file("fifo"), link = temporary.file("stdout"), device = temporary.file("null")
        mkfifo(fifo, 0o644)
        symlink("/proc/self/fd/1", link)
        try expectRefused(["--junit", fifo], saying: "--junit '\(fifo)': it is a FIFO, not a regular file; give the path "
                          + "of a regular file, or of one to create")
        try expectRefused(["--report", link], saying: "--report '\(link)': it is a symbolic link; give the path of the "
                          + "file itself (a result file never follows or replaces a link)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        guard getuid() == 0 else { return }
        #expect(mknod(device, S_IFCHR | 0o666, 0x103) == 0, "a copy of /dev/null (1, 3)")
        try expectRefused(["--html", device], saying: "--html '\(device)': it is a character device, not a regular "
                          + "file; give the path of a regular file, or of one to create")
        #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "the device is still a device")
    }

    @Test func oneFileForTwoOutputsOrForTheConfigIsAUsageError() throws {
        let report = temporary.file("run.json")
        try expectRefused(["--report", report, "--junit", directory + "/./run.json"],
                          saying: "--report and --junit name the same file '\(directory)/./run.json'; give each its own")
        try expectRefused(["--junit", report, "--html", report],
                          saying: "--junit and --html name the same file '\(report)'; give each its own")

        let config = temporary.file("run.toml")
        try "[child.w]\ncommand = [\"touch\", \"\(marker)\"]\n".write(toFile: config, atomically: false, encoding: .utf8)
        let run = try ShellScript.run([Supervise.binary, "--config", config, "--report", config].map(ShellScript.quoted)
            .joined(separator: " "), stdin: "")
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr == "supervise: error: --report '\(config)' is the config file; give the results a file "
                + "of their own (see 'supervise --help')\n")
        #expect(try String(contentsOfFile: config, encoding: .utf8).hasPrefix("[child.w]"), "the config is intact")
    }

    /// Why a tiny tmpfs can't be mounted in a private mount namespace here, or nil.
    static let fullDiskMissingReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: PIDNamespace.unshare) else { return "util-linux's unshare is not installed" }
        return getuid() == 0 ? nil : "mounting a tmpfs in a private mount namespace needs root"
    }()

    /// Runs supervise in a private mount namespace with a 16 KiB tmpfs at `full`, which its child
    /// fills before exiting with `childStatus`; prints supervise's status and then what is left in `full`.
    func runOnAFullDisk(_ arguments: (String) -> [String], childStatus: Int = 0) throws -> (status: Int32, stderr: String, leftInFull: [String]) {
        let full = temporary.file("full")
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: false)
        let supervise = ([Supervise.binary] + arguments(full)
            + ["--", "sh", "-c", "cat /dev/zero > \(full)/fill 2>/dev/null; exit \(childStatus)"]).map(ShellScript.quoted)
            .joined(separator: " ")
        let inside = "mount -t tmpfs -o size=16k tmpfs \(full) && { \(supervise); echo \"status $?\"; ls -A \(full); }"
        let run = try ShellScript.run("exec \(PIDNamespace.unshare) --mount sh -c \(ShellScript.quoted(inside))", stdin: "")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let statusLine = try #require(lines.first { $0.hasPrefix("status ") }, "\(run.stderr)")
        let left = lines.drop { $0 != statusLine }.dropFirst()
        return (Int32(statusLine.dropFirst("status ".count)) ?? -1, run.stderr, Array(left))
    }

    @Test(.skip("a full tmpfs", because: fullDiskMissingReason, in: "ResultDestinationTests"))
    func aReportThatCanNotBeWrittenAtTheEndFailsTheRun() throws {
        let run = try runOnAFullDisk { ["--report", $0 + "/run.json"] }
        #expect(run.status == 125, "\(run.stderr)")
        #expect(run.stderr.contains("supervise: error: supervise failed: cannot write the report to \(temporary.file("full"))/run.json: "
                                    + "no space left on device\n"), "\(run.stderr)")
        #expect(run.leftInFull == ["fill"], "no temporary file left behind")
    }

    @Test(.skip("a full tmpfs", because: fullDiskMissingReason, in: "ResultDestinationTests"))
    func junitOrAPictureThatCanNotBeWrittenFailsTheRunAndTheReportSaysSo() throws {
        let report = temporary.file("run.json")
        let run = try runOnAFullDisk({ ["--report", report, "--junit", $0 + "/junit.xml", "--html", $0 + "/run.html"] },
                                     childStatus: 3)
        #expect(run.status == 125, "125 comes before a child's status: \(run.stderr)")
        #expect(run.stderr.contains("cannot write the JUnit results to"), "\(run.stderr)")
        #expect(run.stderr.contains("cannot write the HTML report to"), "\(run.stderr)")
        #expect(run.leftInFull == ["fill"], "no temporary file left behind")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        #expect(object?["exit_status"] as? Int == 125, "the report says what the run exited with")
    }

    /// Without `--report`, the report the picture is drawn from goes to an unnamed file beside
    /// the page (O_TMPFILE): on a full disk nothing is left of it, and the run fails (125).
    @Test(.skip("a full tmpfs", because: fullDiskMissingReason, in: "ResultDestinationTests"))
    func aPictureAloneThatCanNotBeDrawnFailsTheRunAndLeavesNothing() throws {
        let run = try runOnAFullDisk({ ["--html", $0 + "/run.html"] }, childStatus: 3)
        #expect(run.status == 125, "\(run.stderr)")
        #expect(run.stderr.contains("supervise failed: cannot write the HTML report to \(temporary.file("full"))/run.html: "
                                    + "no space left on device"), "\(run.stderr)")
        #expect(run.leftInFull == ["fill"], "no file left behind")
    }

    static let straceMissingReason: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")
        ? nil : "strace is not installed"

    /// The supervisor draws no picture itself: it runs its own binary as `supervise report` on
    /// the report at fd 0, and leaves nothing but the page.
    @Test(.skip("strace", because: straceMissingReason, in: "ResultDestinationTests"))
    func thePictureIsDrawnByAProcessOfItsOwn() throws {
        let page = temporary.file("drawn.html"), trace = temporary.file("trace.txt")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        let run = try ShellScript.run(["/usr/bin/strace", "-f", "-qq", "-s", "4096", "-e", "trace=execve", "-o", trace, Supervise.binary,
                                       "--html", page, "--", "true"].map(ShellScript.quoted).joined(separator: " "), stdin: "")
        #expect(run.status == 0, "\(run.stderr)")
        let execs = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("execve(") }
        let drawing = execs.filter { $0.contains("execve(\"/proc/self/exe\", [\"supervise\", \"report\", \"/proc/self/fd/0\", "
                                                 + "\"--html=\(page)\"]") && $0.hasSuffix("= 0") }
        #expect(drawing.count == 1, "\(execs)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("<svg"))
        let after = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(after.subtracting(before) == ["drawn.html", "trace.txt"], "nothing else left: \(after.subtracting(before))")
    }
}
