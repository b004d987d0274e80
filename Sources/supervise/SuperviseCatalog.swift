import ArgumentParser

/// The command tree as shell completion and the manual page describe it: the root's options and
/// the subcommands, which main.swift dispatches itself (so `supervise -- report` runs a program
/// called report) and the parsing root therefore doesn't know. main.swift parses with it only
/// `--generate-completion-script` and `--experimental-dump-help` (what `generate-manual` reads),
/// so a run never pays for a tree of commands at start-up (docs/performance.md).
struct SuperviseCatalog: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: SuperviseCommand.configuration.commandName,
        abstract: SuperviseCommand.configuration.abstract,
        usage: SuperviseCommand.configuration.usage,
        discussion: SuperviseCommand.configuration.discussion,
        version: SuperviseCommand.configuration.version,
        subcommands: [CatalogEntry<CtlCommand>.self, CatalogEntry<ReportCommand>.self, CatalogEntry<DoctorCommand>.self])

    /// Whether `first`, the first argument, asks for a completion script or the help dump.
    static func isAskedFor(by first: String?) -> Bool {
        guard let first else { return false }
        return first.hasPrefix("--generate-completion-script") || first == "--experimental-dump-help"
    }

    @OptionGroup var options: SuperviseCommand
}

/// A subcommand in ``SuperviseCatalog``: its own options, under its name without `supervise `.
struct CatalogEntry<Command: ParsableCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        let own = Command.configuration
        return CommandConfiguration(
            commandName: own.commandName.map { String($0.split(separator: " ").last ?? Substring($0)) },
            abstract: own.abstract, usage: own.usage, discussion: own.discussion)
    }

    @OptionGroup var options: Command
}
