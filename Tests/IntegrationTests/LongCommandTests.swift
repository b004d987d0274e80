import Foundation
import Testing
import SuperviseTestSupport

/// A command that takes long to carry out (many children, each signalled in turn) must not
/// change what is reported about them.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct LongCommandTests {
    /// With sigstop each child's stop signal costs scans of /proc, so `terminate all` over many
    /// children outlasts a short grace. Each child's grace starts when it is signalled, and the
    /// exits that happened meanwhile are taken before the graces are judged: once, every child
    /// was recorded as killed at the grace's end (143, `in_time: false`) though each had died of
    /// its SIGTERM at once. The grace is 1 s: at 0.2 s, on a loaded CI machine, 2 of the 100
    /// `sleep`s were not yet scheduled to die of their SIGTERM when it ended (truly late).
    @Test func terminateAllOutlastingTheGraceReportsEachChildAsItEnded() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.url
        let config = directory.appendingPathComponent("many.toml").path
        var text = "freezer = \"sigstop\"\ngrace = \"1s\"\n"
        for index in 0..<100 { text += "[child.c\(index)]\ncommand = [\"sleep\", \"300\"]\n" }
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config, "--log-level", "warning"],
                                    stdin: "wait active all timeout=60s\nterminate all\n", timeout: 120)
        let children = run.report?["children"] as? [[String: Any]] ?? []
        #expect(children.count == 100)
        let exits = children.compactMap { $0["exit"] as? [String: Any] }
        let late = exits.filter { $0["by"] as? String != "terminate" || $0["in_time"] as? Bool != true }
        #expect(late.count == 0, "children reported as not ended by their termination, e.g. \(late.first ?? [:])")
        #expect(run.status == 0, "\(run.stderr)")
    }
}
