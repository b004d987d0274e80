import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// `TOMLParser` on generated documents of the supported subset, and `ConfigFile` on mutated
/// config files.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct TOMLFuzzTests {
    @Test func generatedDocumentsParseToTheGeneratedTables() {
        var run = FuzzRun("toml-generated", defaultIterations: 3000)
        for _ in 0..<run.iterations {
            var writer = TOMLWriter(random: SeededGenerator(seed: run.random.next()))
            let (text, expected) = writer.document()
            do {
                #expect(PlainTOML(try TOMLParser.parse(text)) == expected, "document \(ErrorShape.show(Array(text.utf8)))")
            } catch {
                Issue.record("refused \(ErrorShape.show(Array(text.utf8))): line \(error.line): \(error.message)")
            }
        }
    }

    @Test func mutatedConfigFilesGiveChildrenOrOneLineError() {
        var run = FuzzRun("toml-mutated", defaultIterations: 3000)
        let corpus = Corpus.documents("toml")
        for _ in 0..<run.iterations {
            let bytes = Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                       splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let children = try ConfigFile.parse(text: text, path: "fuzz.toml", commandLine: SettingsOverrides())
                #expect(!children.isEmpty)
            } catch {
                let problem = ErrorShape.problem(error.message)
                #expect(problem == nil, "\(ErrorShape.show(bytes)): \(problem ?? ""): \(error.message.prefix(300))")
            }
        }
    }
}
