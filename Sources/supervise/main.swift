#if canImport(Glibc)
import Glibc
#endif

// Usage errors exit with 2, as the contract says, rather than ArgumentParser's 64; one line.
do {
    var command = try SuperviseCommand.parseAsRoot()
    try command.run()
} catch {
    if SuperviseCommand.exitCode(for: error).isSuccess {
        SuperviseCommand.exit(withError: error)
    }
    let line = "supervise: error: \(SuperviseCommand.message(for: error)) (see 'supervise --help')\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
