import Foundation
import Testing
import SuperviseTestSupport

/// The stdin error lines docs/cli.md shows are the lines the binary prints, to the byte: each
/// example is replayed on its own line number and looked for in stderr.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct DocErrorLineTests {
    static let cliDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/cli.md")

    /// The doc's example error lines, without their indent.
    static func documentedLines() throws -> [String] {
        try String(contentsOf: cliDoc, encoding: .utf8).split(separator: "\n")
            .map { $0.drop { $0 == " " } }
            .filter { $0.hasPrefix("supervise: error: ") }
            .map(String.init)
    }

    /// One child named worker, in the foreground; each documented command on its documented line.
    @Test func singleChildExamplesMatchTheBinary() throws {
        var script = Array(repeating: "# filler", count: 12)
        script[0] = "bakground"
        script[2] = "event worker bad/kind"
        script[3] = "foreground nobody"
        script[9] = "event worker push"
        script[10] = "wait suspended timeout=300ms"
        script[11] = "terminate"
        // With --keep-going: from a pipe, the first mistake would end the run (tested below).
        let run = try Supervise.run(["--name", "worker", "--keep-going", "--", "sleep", "30"],
                                    stdin: script.joined(separator: "\n") + "\n")
        let printed = Set(run.stderr.split(separator: "\n").map(String.init))
        let expected = try Self.documentedLines().filter { line in
            line.hasPrefix("supervise: error: stdin line ") &&
            ["'bakground'", "'event worker", "'foreground nobody'", "'wait suspended timeout=300ms'"].contains { line.contains($0) }
        }
        #expect(expected.count == 5, "\(expected)")
        for line in expected { #expect(printed.contains(line), "docs/cli.md shows \(line)\nthe binary printed:\n\(run.stderr)") }
    }

    @Test func overlongLineExampleMatchesTheBinary() throws {
        let script = "# filler\n# filler\n# filler\n" + String(repeating: "x", count: 70_000) + "\nterminate\n"
        let run = try Supervise.run(["--", "sleep", "30"], stdin: script)
        let expected = try Self.documentedLines().filter { $0.contains("is over 65536 bytes") }
        #expect(expected.count == 1)
        for line in expected { #expect(run.stderr.contains(line + "\n"), "docs/cli.md shows \(line)\nthe binary printed:\n\(run.stderr)") }
    }

    /// A wait the child's exit makes impossible, on line 5.
    @Test func unreachableWaitExampleMatchesTheBinary() throws {
        let script = "background\n# filler\n# filler\n# filler\nwait active\n"
        let run = try Supervise.run(["--name", "worker", "--", "sleep", "0.5"], stdin: script)
        let expected = try Self.documentedLines().filter { $0.contains("can't become active") }
        #expect(expected.count == 1)
        for line in expected { #expect(run.stderr.contains(line + "\n"), "docs/cli.md shows \(line)\nthe binary printed:\n\(run.stderr)") }
    }

    /// A command without NAME for two children, api and batch, on line 3.
    @Test func missingNameExampleMatchesTheBinary() throws {
        let temporary = TemporaryDirectory()
        defer { temporary.remove() }
        let config = temporary.file("two.toml")
        try "[child.api]\ncommand = [\"sleep\", \"30\"]\n[child.batch]\ncommand = [\"sleep\", \"30\"]\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let run = try Supervise.run(["--config", config], stdin: "# filler\n# filler\nbackground\nterminate all\n")
        let expected = try Self.documentedLines().filter { $0.contains("stdin line 3: 'background': name a child or 'all'") }
        #expect(expected.count == 1)
        for line in expected { #expect(run.stderr.contains(line + "\n"), "docs/cli.md shows \(line)\nthe binary printed:\n\(run.stderr)") }

        // The "Scripts fail fast" example: the same mistake on line 2 ends the run, with a notice.
        let failed = try Supervise.run(["--config", config], stdin: "# filler\nbackground\n")
        #expect(failed.status == 123)
        let shown = try String(contentsOf: Self.cliDoc, encoding: .utf8).split(separator: "\n")
            .map { String($0.drop { $0 == " " }) }.filter { $0.hasPrefix("supervise: ") && $0.contains("stdin line 2") }
        #expect(shown.count == 2, "\(shown)")
        for line in shown { #expect(failed.stderr.contains(line + "\n"), "docs/cli.md shows \(line)\nthe binary printed:\n\(failed.stderr)") }
    }

    @Test func badDurationExampleMatchesTheBinary() throws {
        let run = try Supervise.run(["--window", "5x", "--", "true"])
        #expect(run.status == 2)
        let expected = try Self.documentedLines().filter { $0.contains("'5x'") }
        #expect(expected.count == 1)
        for line in expected { #expect(run.stderr == line + "\n", "docs/cli.md shows \(line)\nthe binary printed:\n\(run.stderr)") }
    }
}
