import ArgumentParser
import Glibc

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
        var argv = command.map { strdup($0) }
        argv.append(nil)
        guard posix_spawnp(&commandPID, command[0], nil, nil, argv, environ) == 0 else { throw ExitCode(127) }
        signal(SIGTERM) { _ in kill(commandPID, SIGTERM) }
        var status: Int32 = 0
        while waitpid(commandPID, &status, 0) < 0 && errno == EINTR {}
        throw ExitCode((status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
    }
}

/// The running command, for the SIGTERM handler.
nonisolated(unsafe) var commandPID: pid_t = 0
