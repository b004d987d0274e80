import Testing
@testable import supervise
import SuperviseTestSupport

/// `SuperviseCommand`'s argument parsing (swift-argument-parser and our validation), in
/// process, on mutated argument vectors.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct CLIFuzzTests {
    /// Arguments that change how the ones around them are read.
    static let interestingArguments = ["--", "-", "---", "--window=", "--window", "-h", "--help", "--no-prefix=1",
                                       "--config", "--name", "all", "--max-tasks", "0", "1e999", "--log-level",
                                       "--freezer=cgroup3", "--stop-signal", "SIGKILL", "65", "-1", ""]

    @Test func mutatedArgumentsParseOrFailWithOneLine() {
        var run = FuzzRun("cli-mutated", defaultIterations: 200)
        let corpus = Corpus.lines("cli").map { String(decoding: $0, as: UTF8.self).split(separator: " ").map(String.init) }
        for _ in 0..<run.iterations {
            let arguments = Self.mutate(corpus.randomElement(using: &run.random)!,
                                        splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            do {
                let command = try SuperviseCommand.parse(arguments)
                if command.config == nil {
                    // A missing command is found here, after the options (unknown ones first).
                    let specs = try command.childSpecs()
                    #expect(!command.command.isEmpty && specs.children.count == 1)
                }
            } catch {
                guard !SuperviseCommand.exitCode(for: error).isSuccess else { continue }  // --help, --version
                // What main.swift prints.
                let line = "supervise: error: \(oneLine(SuperviseCommand.message(for: error))) (see 'supervise --help')"
                let longest = arguments.map(\.utf8.count).max() ?? 0
                #expect(line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F },
                        "\(arguments): \(line)")
                // ArgumentParser quotes an argument whole; our own messages quote an excerpt.
                #expect(line.utf8.count <= ErrorShape.maxBytes + 2 * longest, "\(arguments): \(line.prefix(300))")
            }
        }
    }

    /// ArgumentParser quotes unexpected arguments whole: three of 2,368 bytes (what seed
    /// 1064006362 made) gave a 7 KB line; each is quoted in part, as the supervisor's own.
    @Test func longUnexpectedArgumentsAreQuotedInPart() {
        let long = String(repeating: "a", count: 2_368)
        for arguments in [[long, long, long], [long]] {
            do {
                _ = try SuperviseCommand.parse(arguments)
                Issue.record("\(arguments.count) unexpected arguments were taken")
            } catch {
                let line = oneLine(SuperviseCommand.message(for: error))
                #expect(line.utf8.count < 400 && line.contains("'\(long.prefix(80))…'"), "\(line.prefix(300))")
            }
        }
    }

    /// One to three changes to the argument vector: an argument's bytes mutated, an argument
    /// inserted, dropped or repeated, or a splice with another vector.
    static func mutate(_ input: [String], splicingFrom other: [String], _ random: inout SeededGenerator) -> [String] {
        var arguments = input
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = Int.random(in: 0...arguments.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !arguments.isEmpty:
                let index = min(at, arguments.count - 1)
                let bytes = Mutator.mutate(Array(arguments[index].utf8), splicingFrom: Array(other.joined().utf8), &random)
                // An argument is a C string: it ends at a NUL.
                arguments[index] = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            case 1:
                arguments.insert(interestingArguments.randomElement(using: &random)!, at: at)
            case 2 where !arguments.isEmpty:
                arguments.remove(at: min(at, arguments.count - 1))
            case 3 where !arguments.isEmpty:
                arguments.insert(arguments[min(at, arguments.count - 1)], at: at)
            default:
                arguments = Array(arguments.prefix(at)) + other.suffix(Int.random(in: 0...other.count, using: &random))
            }
        }
        return arguments
    }
}
