/// Where a command came from, as the run's rules see it (docs/cli.md, "Control socket"): it
/// says where the command's refusals go, and whether a mistake in it can end the run.
public enum CommandSource: Equatable, Sendable {
    /// Line `line` of standard input, numbered from 1, whose mistakes do what `mistakes` says.
    case stdin(line: Int, mistakes: CommandMistakes)
    /// A client of the control socket: its refusals are its own.
    case client
}

/// Why a command line is not run at all (``RunInput/commandRejected(text:_:from:)``).
public enum CommandRejection: Equatable, Sendable {
    /// A blank line or a comment: no command.
    case blank
    /// A line that can't be read as a command: `message` may quote it, `problem` may not
    /// (for a line typed at a terminal: `CommandEcho`).
    case unparsable(message: String, problem: String)
    /// A command that can't be run as written (a NAME no child has, no NAME with several
    /// children, a line over the length limit), for `reason`.
    case unrunnable(reason: String)
}

/// Where a command's refusals go (docs/cli.md, "Control socket", "End of input").
extension RunCore {
    /// The answer to a blank line from a control client: a usage error, as for any line that
    /// is not a command.
    static let blankLine = "no command: the line is blank or a comment"

    /// `reason`, a refusal of the command `text`, routed to where it came from: an error line in
    /// the log for a stdin command, the client's own answer (and a notice in the log) for a
    /// control client's; for a signal or the loop (`source` nil) nobody is there to answer.
    public static func refusal(_ reason: String, of text: String, from source: CommandSource?) -> [RunAction] {
        switch source {
        case .stdin(let line, _): [.refuseOnStdin(line: line, text: text, reason: reason)]
        case .client: [.refuseToClient(text: text, reason: reason)]
        case nil: []
        }
    }

    /// The line `text` is rejected, from `source`: a client gets a usage error or a refusal; a
    /// stdin line is an error line in the log, and a mistake, which may end the run
    /// (``commandMistake(_:_:_:_:)``); a blank stdin line is nothing.
    mutating func rejected(_ text: String, _ rejection: CommandRejection, from source: CommandSource) -> [RunAction] {
        switch (source, rejection) {
        case (.client, .blank): return [.usageErrorToClient(Self.blankLine)]
        case (.client, .unparsable(let message, _)): return [.usageErrorToClient(message)]
        case (.client, .unrunnable(let reason)): return [.refuseToClient(text: text, reason: reason)]
        case (.stdin, .blank): return []
        case (.stdin(let line, let mistakes), .unparsable(let message, let problem)):
            return [.ignoreOnStdin(line: line, message: message, problem: problem)]
                + commandMistake(line, text, message, mistakes)
        case (.stdin(let line, let mistakes), .unrunnable(let reason)):
            return [.refuseOnStdin(line: line, text: text, reason: reason)] + commandMistake(line, text, reason, mistakes)
        }
    }
}
