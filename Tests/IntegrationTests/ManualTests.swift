import Foundation
import SuperviseTestSupport
import Testing

/// Shell completion and the manual page come from the parser, and cover the subcommands main.swift dispatches
/// itself (docs/cli.md, "Manual page", "Shell completion").
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct ManualTests {
    static let suite = "ManualTests"
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let page = repository.appendingPathComponent("docs/supervise.1").path

    /// swift-argument-parser's tool, built beside the test bundle by `scripts/test.sh`
    /// (`swift build --product generate-manual` with the tests' scratch path and flags:
    /// `--build-tests` does not build it).
    static let generateManual = Supervise.built("generate-manual")
    static let generatorMissing: String? = FileManager.default.isExecutableFile(atPath: generateManual)
        ? nil : "\(generateManual) is not built (scripts/test.sh builds it beside the tests: swift build --product generate-manual with the same --scratch-path and flags)"
    static let manMissing: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/man")
        ? nil : "man is not installed (Debian's man-db: scripts/setup-debian.sh)"

    /// Each shell's script offers the subcommands, and after `ctl` its own `--socket` and `--format` (with the
    /// formats), as each shell spells them.
    @Test(arguments: [
        ("bash", ["ctl|report|doctor|help)", "_supervise_ctl()", "non_repeating_options=(--socket --format --timeout)"]),
        ("zsh", ["'ctl:Send one command", "'report:Draw a run", "'doctor:Say what", "_supervise_ctl()",
                 "local -ar ___format=('json' 'table')"]),
        ("fish", ["-fa 'ctl'", "-fa 'report'", "-fa 'doctor'", "\"supervise ctl\" socket' -l 'socket'",
                  "\"supervise ctl\" format' -l 'format' -d 'status as json lines or a table. (default: table on a terminal)' -rfka 'json table'"]),
    ])
    func completionOffersTheSubcommandsAndTheirOptions(shell: String, expected: [String]) throws {
        let result = try runToEnd([Supervise.binary, "--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.output)")
        for text in expected {
            #expect(result.output.contains(text), "\(shell) completion lacks \(text)")
        }
    }

    /// `help`, which completion offers as ArgumentParser's, is the named command's --help.
    @Test func helpSubcommandIsTheCommandsHelp() throws {
        let root = try runToEnd([Supervise.binary, "help"])
        #expect(root.status == 0 && root.output.hasPrefix("OVERVIEW: Run programs under the iOS app lifecycle."), "\(root.output)")
        let ctl = try runToEnd([Supervise.binary, "help", "ctl"])
        #expect(ctl.status == 0 && ctl.output.hasPrefix("OVERVIEW: Send one command to a supervisor"), "\(ctl.output)")
        // After `--`, `help` and the subcommands' names are programs like any other.
        let program = try runToEnd([Supervise.binary, "--control", "none", "--", "report"])
        #expect(program.status == 127 && program.output.contains("cannot run 'report'"), "\(program.output)")
    }

    /// docs/supervise.1 is what generate-manual makes from the binary now (its date aside): it can't go stale.
    @Test(.skip("comparing the manual page with the parser", because: generatorMissing, in: suite))
    func manualPageIsGeneratedFromTheParser() throws {
        let directory = TemporaryDirectory(prefix: "supervise-manual")
        defer { directory.remove() }
        let result = try runToEnd([Self.generateManual, Supervise.binary, "-o", directory.path])
        #expect(result.status == 0, "\(result.output)")
        func body(_ path: String) throws -> [Substring] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix(".Dd ") }
        }
        let generated = try body(directory.file("supervise.1"))
        let committed = try body(Self.page)
        let difference = zip(generated, committed).first { $0 != $1 }.map { "\($0.0) / \($0.1)" } ?? "the length"
        #expect(generated == committed,
                "docs/supervise.1 differs from the parser: generate it again as docs/cli.md says (first difference: \(difference))")
        #expect(committed.contains { $0.hasPrefix(".It Em ctl") } && committed.contains { $0.hasPrefix(".It Em doctor") })
    }
}
