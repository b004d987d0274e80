import Foundation
import Testing
import SuperviseTestSupport

/// Every descendant the supervisor adopted is reaped before it exits: the run ends when the
/// trees are empty, and a process that has died has left its tree before it is reaped, so a
/// zombie would otherwise be left to whoever reaps after the supervisor (pid 1 in a container).
/// `Workers/subreaper.py` runs `supervise` under a child subreaper and counts what it left.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct OrphanReapingTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    /// Runs `supervise ARGUMENTS` under the subreaper: its exit status, and how many processes
    /// it left behind unreaped.
    func leftBehind(_ arguments: [String]) throws -> (status: Int32, left: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Supervise.worker("subreaper.py"), Supervise.binary, "--log-level", "error"]
            + arguments
        let output = Pipe.closedOnExec()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        let line = try #require(words.firstIndex(of: "exit"), "no result line: \(text)")
        try #require(words.count >= line + 4 && words[line + 2] == "left", "\(text)")
        return (Int32(words[line + 1]) ?? -1, Int(words[line + 3]) ?? -1)
    }

    /// With two children, an orphan that names neither (no `SUPERVISE_NAME`) belongs to no
    /// sigstop tree: the run ends without it, and the teardown kills it. It must be reaped too.
    @Test func anOrphanKilledAtTheTeardownIsReaped() throws {
        let config = temporary.file("two.toml")
        try """
            freezer = "sigstop"
            [child.a]
            command = ["sh", "-c", "env -u SUPERVISE_NAME sleep 30 & exit 0"]
            [child.b]
            command = ["sleep", "0.3"]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let (status, left) = try leftBehind(["--config", config])
        #expect(status == 0)
        #expect(left == 0, "the orphan's zombie was left behind")
    }

    /// A main process that dies first (a `multiprocessing.Pool` parent, `make`) leaves its
    /// children to the supervisor, which stops them with the stop signal; they may die just as
    /// the tree is found empty. Repeated: the race shows in a few runs of a dozen (more with a
    /// release build, whose checks come closer together).
    @Test(arguments: Backend.usable(in: "OrphanReapingTests"))
    func childrenLeftByAMainProcessThatDiedFirstAreAllReaped(backend: Backend) throws {
        for run in 1...12 {
            let (status, left) = try leftBehind(["--freezer", backend.rawValue, "--",
                                                 "sh", "-c", "for i in 1 2 3 4 5 6; do sleep 30 & done; exit 0"])
            #expect(status == 0, "run \(run)")
            #expect(left == 0, "run \(run): \(left) left behind unreaped")
        }
    }
}
