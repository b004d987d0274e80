import ArgumentParser
import FloorRun

/// The floor with supervise's parser: `floor-swift` (Benchmarks/floor-swift) with five options
/// parsed by swift-argument-parser, linked the same way. What it costs beyond floor-swift is the
/// parser's; what supervise costs beyond it is supervise's own (docs/performance.md).
@main
struct FloorParser: ParsableCommand {
    @Option(help: "A name.") var name: String?
    @Option(help: "A window in seconds.") var window: Double = 5
    @Option(help: "A limit in seconds.") var limit: Int = 30
    @Flag(help: "A flag.") var verbose = false
    @Option(help: "A mode.") var mode: String = "auto"
    @Argument(parsing: .postTerminator, help: "The command.") var command: [String] = []

    func run() throws {
        guard !command.isEmpty else { return }
        throw ExitCode(runToEnd(command))
    }
}
