import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// `ControlParser` (stdin commands) on generated and mutated lines.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct ControlFuzzTests {
    @Test func generatedCommandsParseBackToWhatWasWritten() throws {
        var run = FuzzRun("control-generated", defaultIterations: 5000)
        for _ in 0..<run.iterations {
            let (line, command) = Self.generate(&run.random)
            #expect(try ControlParser.parse(line) == command, "line \(ErrorShape.show(Array(line.utf8)))")
        }
    }

    @Test func mutatedLinesGiveACommandOrOneLineError() {
        var run = FuzzRun("control-mutated", defaultIterations: 3000)
        let corpus = Corpus.lines("control")
        for _ in 0..<run.iterations {
            let bytes = Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                       splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            do {
                _ = try ControlParser.parse(String(decoding: bytes, as: UTF8.self))
            } catch {
                #expect(ErrorShape.problem(error.message) == nil,
                        "\(ErrorShape.show(bytes)): \(ErrorShape.problem(error.message) ?? "")")
            }
        }
    }

    /// A line typed at a terminal may be a password meant for a child: whatever is wrong with a
    /// mutated line holding a secret-looking word, what the log may say of it (`problem`) holds
    /// no part of that word, while the quoting `message` still shows it.
    @Test func theProblemOfALineHoldsNoWordOfIt() {
        var run = FuzzRun("control-withheld", defaultIterations: 3000)
        let corpus = Corpus.lines("control")
        for _ in 0..<run.iterations {
            let secret = "Qz" + String((0..<10).map { _ in Array("abcdefXYZ0189!%").randomElement(using: &run.random)! })
            var words = String(decoding: Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                                        splicingFrom: corpus.randomElement(using: &run.random)!,
                                                        &run.random), as: UTF8.self).split(separator: " ").map(String.init)
            let at = Int.random(in: 0...words.count, using: &run.random)
            words.insert(run.random.oneIn(4) ? "timeout=\(secret)" : secret, at: at)
            let line = words.joined(separator: " ")
            do {
                _ = try ControlParser.parse(line)
            } catch {
                #expect(!error.problem.contains("Qz"), "\(ErrorShape.show(Array(line.utf8))): \(error.problem)")
                #expect(ErrorShape.problem(error.problem) == nil, "\(error.problem)")
            }
        }
    }

    /// A valid command line and the command it names, with spaces, tabs and comments mixed in.
    static func generate(_ random: inout SeededGenerator) -> (String, ControlCommand) {
        func space() -> String { [" ", "  ", "\t", " \t "].randomElement(using: &random)! }
        func token(_ extra: String) -> String {
            let alphabet = Array("abcXYZ019" + extra)
            return String((0..<Int.random(in: 1...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
        func target() -> (String, ControlTarget) {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return ("", .unnamed)
            case 1: return (space() + "all", .all)
            default:
                let name = token("._-")
                return (space() + name, .named(name))
            }
        }
        func named() -> (String, ControlTarget) {
            let (text, target) = target()
            return target == .unnamed ? (space() + "all", .all) : (text, target)
        }
        let comment = random.oneIn(3) ? space() + "# note" : ""
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            let (text, target) = target()
            return ("background" + text + comment, .background(target))
        case 1:
            let (text, target) = target()
            return ("foreground" + text + comment, .foreground(target))
        case 2:
            let (text, target) = target()
            return ("terminate" + text + comment, .terminate(target))
        case 3:
            let (text, target) = named()
            let kind = token(".:_-")
            // The TEXT is verbatim, `#` included, and starts with a base character.
            let words = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                ["hi", "#tag", "é\u{301}", "😀", "a=b", "\u{200F}x"].randomElement(using: &random)!
            }
            let eventText = words.joined(separator: " ")
            return ("event" + text + space() + kind + (words.isEmpty ? "" : space() + eventText),
                    .event(target, kind: kind, text: words.isEmpty ? nil : eventText))
        case 4:
            return ("status" + comment, .status)
        case 5:
            let state = ControlParser.waitableStates.randomElement(using: &random)!
            let (text, target) = target()
            let microseconds = Int64.random(in: 0...10_000_000_000, using: &random)
            let timeout = random.oneIn(2) ? space() + "timeout=\(microseconds)us" : ""
            return ("wait " + state.rawValue + text + timeout + comment,
                    .wait(state: state, target: target,
                          timeout: timeout.isEmpty ? ControlParser.defaultWaitTimeout : .microseconds(microseconds)))
        default:
            let milliseconds = Int64.random(in: 0...1_000_000_000, using: &random)
            return ("sleep" + space() + "\(milliseconds)ms" + comment, .sleep(.milliseconds(milliseconds)))
        }
    }
}
