import SuperviseConfig
import SuperviseLifecycle
import SuperviseShell
import SuperviseSystem

/// `message` on one line: ArgumentParser's list of allowed values (`  - trace` lines) joined
/// with commas, and any other line break in what the user typed escaped.
func oneLine(_ message: String) -> String {
    let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
    let items = lines.dropFirst().map { $0.drop { $0 == " " } }
    guard !items.isEmpty, items.allSatisfy({ $0.hasPrefix("- ") }) else { return ControlEscapes.escaped(message) }
    return ControlEscapes.escaped(lines[0] + " " + items.map { $0.dropFirst(2) }.joined(separator: ", "))
}

if CommandLine.arguments.dropFirst().first == "doctor" { DoctorCommand.runAndExit(Array(CommandLine.arguments.dropFirst(2))) }

// Usage errors exit with 2, as the contract says, rather than ArgumentParser's 64; one line.
do {
    var command = try SuperviseCommand.parseAsRoot()
    try command.run()
} catch {
    if SuperviseCommand.exitCode(for: error).isSuccess {
        SuperviseCommand.exit(withError: error)
    }
    let line = "supervise: error: \(oneLine(SuperviseCommand.message(for: error))) (see 'supervise --help')\n"
    Descriptor.writeAll(Descriptor.standardError, line)
    CurrentProcess.exit(2)
}
