import ArgumentParser
import SuperviseConfig
import SuperviseSystem

/// `message` on one line: ArgumentParser's list of allowed values (`  - trace` lines) joined
/// with commas, any other line break in what the user typed escaped, and each unexpected
/// argument it quotes cut to an excerpt.
func oneLine(_ message: String) -> String {
    let message = excerptingUnexpected(message)
    let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
    let items = lines.dropFirst().map { $0.drop { $0 == " " } }
    guard !items.isEmpty, items.allSatisfy({ $0.hasPrefix("- ") }) else { return ControlEscapes.escaped(message) }
    return ControlEscapes.escaped(lines[0] + " " + items.map { $0.dropFirst(2) }.joined(separator: ", "))
}

/// ArgumentParser's "Unexpected argument 'X'" and "N unexpected arguments: 'X', 'Y'" quote each
/// argument whole (three of 2,000 bytes made a 7 KB line): each is cut to an excerpt, as the
/// supervisor's own messages quote one.
func excerptingUnexpected(_ message: String) -> String {
    for opening in ["Unexpected argument '", " unexpected arguments: '"] {
        guard let start = message.firstRange(of: opening), message.count > opening.count, message.hasSuffix("'"),
              opening.first == " " || start.lowerBound == message.startIndex else { continue }
        let list = message[start.upperBound..<message.index(before: message.endIndex)]
        let quoted = list.split(separator: "', '", omittingEmptySubsequences: false).map { "'\(ControlText.excerpt($0))'" }
        return message[..<start.upperBound].dropLast() + quoted.joined(separator: ", ")
    }
    return message
}

/// The first word of ArgumentParser's "Unexpected argument 'X'" or "2 unexpected arguments: 'X', 'Y'".
func firstUnexpectedArgument(_ message: String) -> String? {
    guard message.hasPrefix("Unexpected argument") || message.contains("unexpected arguments:"),
          let open = message.firstIndex(of: "'") else { return nil }
    let rest = message[message.index(after: open)...]
    return rest.firstIndex(of: "'").map { String(rest[..<$0]) }
}

/// `supervise NAME …` runs the subcommand NAME, parsed by its own type (its own `--help`).
/// Anything else is the root command: `supervise -- report` runs a program called report.
let subcommands: [String: any ParsableCommand.Type] = [
    "report": ReportCommand.self,
    "doctor": DoctorCommand.self,
    "ctl": CtlCommand.self,
]

/// `supervise help [SUBCOMMAND]`, which shell completion offers (ArgumentParser's), is that command's `--help`.
let arguments = CurrentProcess.arguments.dropFirst().first == "help"
    ? Array(CurrentProcess.arguments.dropFirst(2).prefix(1)) + ["--help"]
    : Array(CurrentProcess.arguments.dropFirst())
let subcommand = arguments.first.flatMap { name in subcommands[name].map { (name, $0) } }
let commandType: any ParsableCommand.Type = subcommand?.1
    ?? (SuperviseCatalog.isAskedFor(by: arguments.first) ? SuperviseCatalog.self : SuperviseCommand.self)
let commandName = subcommand.map { "supervise \($0.0)" } ?? "supervise"

// Usage errors exit with 2, as the contract says, rather than ArgumentParser's 64; one line.
do {
    var command = try commandType.parseAsRoot(subcommand == nil ? arguments : Array(arguments.dropFirst()))
    try command.run()
} catch {
    if commandType.exitCode(for: error).isSuccess {
        commandType.exit(withError: error)
    }
    var message = oneLine(commandType.message(for: error))
    if subcommand == nil, let word = firstUnexpectedArgument(message) {
        if let name = ControlText.closest(to: word, in: Array(subcommands.keys)) {
            message += ": did you mean 'supervise \(name)'?"
        } else if let name = ControlText.closest(to: word, in: ControlParser.commandNames), name != word {
            // `supervise statsu`: a command for a running supervisor goes through ctl (a word that
            // is one exactly, `sleep`, is more likely a program put before '--').
            message += ": did you mean 'supervise ctl \(name)'?"
        } else {
            // `supervise ./worker`: the usual mistake is a command without `--` before it.
            message += ": put the command after '--', as in 'supervise --window 2 -- ./worker'"
        }
    }
    let line = "\(commandName): error: \(message) (see '\(commandName) --help')\n"
    Descriptor.writeAll(Descriptor.standardError, line)
    CurrentProcess.exit(2)
}
