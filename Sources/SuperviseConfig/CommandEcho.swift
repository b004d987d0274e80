/// What the log says of a stdin command line it refuses: the line quoted when stdin is a pipe
/// or a file, never when it is a terminal. At a terminal a child that reads `/dev/tty` (a
/// password prompt) is stopped while supervise reads its commands, so what the user types for
/// the child reaches supervise: its error line says what was wrong without a word of the line,
/// at any `--log-level`. Control clients are not stdin: their lines are always quoted.
public enum CommandEcho: Equatable, Sendable {
    /// A pipe or a file: the line and the word at fault are quoted, with the hints.
    case quoted
    /// A terminal: nothing the user typed is written to the log.
    case withheld

    /// The rule for commands read from a terminal or not.
    public init(fromTerminal: Bool) {
        self = fromTerminal ? .withheld : .quoted
    }

    /// The error line for stdin line `number`, which can't be read as a command.
    public func ignored(line number: Int, _ error: ControlLineError) -> String {
        ignored(line: number, message: error.message, problem: error.problem)
    }

    /// The error line for stdin line `number`, which can't be read as a command: `message`
    /// quotes it, `problem` does not (a ``ControlLineError``'s two ways).
    public func ignored(line number: Int, message: String, problem: String) -> String {
        switch self {
        case .quoted: "stdin line \(number): \(message)"
        case .withheld: "stdin line \(number): ignored a line from the terminal: \(problem)"
        }
    }

    /// The error line for the command `text` on stdin line `number`, refused for `reason`, which
    /// names children but no word of a line that is not a command (``unknownChild(_:among:)``).
    public func refused(line number: Int, _ text: String, _ reason: String) -> String {
        switch self {
        case .quoted: "stdin line \(number): '\(ControlText.excerpt(text))': \(reason)"
        case .withheld: "stdin line \(number): \(reason)"
        }
    }

    /// Why a command naming `name`, which no child has, is refused.
    public func unknownChild(_ name: String, among children: [String]) -> String {
        let list = "(children: \(children.joined(separator: ", ")))"
        switch self {
        case .quoted: return "no child named '\(ControlText.excerpt(name))' \(list)"
        case .withheld: return "no child has that name \(list)"
        }
    }
}
