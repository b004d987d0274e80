import Foundation
import Testing
import SuperviseTestSupport

/// A supervisor SIGKILLed while it writes a result file leaves its temporary file beside the
/// destination; the next run's check of that destination removes it, and nothing else: not a
/// live writer's, not a link, not another name (issue 24, item 11).
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ResultLeftoverTests {
    let temporary = TemporaryDirectory()
    var directory: String { temporary.path }
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }
    static let strace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")
        ? nil : "strace is not installed (it kills supervise at the fsync of its report)"

    @Test(.skip("strace", because: strace, in: "ResultLeftoverTests"))
    func aLeftoverOfAKilledSupervisorIsRemovedByTheNextRun() throws {
        let report = temporary.file("r.json"), html = temporary.file("r.html")
        // Killed by strace as it syncs the report's temporary file: after the write, before the rename.
        let killed = try ShellScript.run(["strace", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:signal=KILL",
                                          Supervise.binary, "--report", report, "--", "true"]
            .map(ShellScript.quoted).joined(separator: " "), stdin: "")
        #expect(killed.status == 128 + SIGKILL, "\(killed.stderr)")
        let leftovers = entries.filter { $0.hasPrefix(".r.json.supervise-") }
        #expect(leftovers.count == 1 && !FileManager.default.fileExists(atPath: report), "\(entries)")
        let leftover = leftovers.first.flatMap { try? String(contentsOfFile: temporary.file($0), encoding: .utf8) } ?? ""
        #expect(leftover.contains("\"children\""), "it holds the report: \(leftover.prefix(200))")

        // Beside it: a live writer's (locked), a dead --html writer's, a link, and other names.
        let live = temporary.file(".r.json.supervise-0000beef")
        try "{".write(toFile: live, atomically: false, encoding: .utf8)
        let held = open(live, O_RDONLY | O_CLOEXEC)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        try "<html".write(toFile: temporary.file(".r.html.supervise-0000dead"), atomically: false, encoding: .utf8)
        try "secret\n".write(toFile: temporary.file("victim"), atomically: false, encoding: .utf8)
        symlink(temporary.file("victim"), temporary.file(".r.json.supervise-00000bad"))
        for other in [".r.json.abcdef", ".r.json.supervise-tmp"] {
            try "x".write(toFile: temporary.file(other), atomically: false, encoding: .utf8)
        }

        let next = try ShellScript.run([Supervise.binary, "--report", report, "--html", html, "--log-level", "info",
                                        "--", "true"].map(ShellScript.quoted).joined(separator: " "), stdin: "")
        #expect(next.status == 0, "\(next.stderr)")
        for file in [report, html] {
            #expect(next.stderr.contains("removed 1 temporary file of '\(file)' left by supervisors that are gone"),
                    "\(next.stderr)")
        }
        #expect(entries == [".r.json.abcdef", ".r.json.supervise-00000bad", ".r.json.supervise-0000beef",
                            ".r.json.supervise-tmp", "r.html", "r.json", "victim"], "\(entries)")
        #expect(try String(contentsOfFile: temporary.file("victim"), encoding: .utf8) == "secret\n")
    }
}
