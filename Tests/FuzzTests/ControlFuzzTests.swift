import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// `ControlParser` (stdin commands) on generated and mutated lines.
@Suite(.timeLimit(FuzzRun.timeLimit)) struct ControlFuzzTests {
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
