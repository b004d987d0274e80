/// A control line that can't be read as a command, said two ways: `message` quotes the line
/// and the word at fault, for a line the log may quote (a pipe, a file, a control client);
/// `problem` says what is wrong and what is expected without a word of the line, for a line
/// typed at a terminal, which may be a password meant for a child (``CommandEcho``).
public struct ControlLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `ignored 'LINE': unknown command 'bakground' (did you mean 'background'?): expected …`
    public let message: String
    /// `unknown command: expected …`: the parser's words only, never the user's.
    public let problem: String

    /// The error for `line`: `detail` may quote it, `problem` may not.
    init(line: String, detail: String, problem: String) {
        message = UsageError("ignored '\(ControlText.excerpt(ControlText.trimmed(line)))': \(detail)").message
        self.problem = problem
    }

    public var description: String { message }
}
