/// A mistake in what the user wrote: an option value, a control command or the config file.
///
/// `message` is one line: what is wrong, where, and what is accepted instead.
/// The command line turns it into exit status 2; a bad control command is
/// printed and ignored.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One line for the user.
    public var message: String

    /// An error with the given message; control characters in it (from quoted user input)
    /// are shown escaped as the log escapes them (``ControlEscapes``), so it stays one line.
    public init(_ message: String) {
        self.message = ControlEscapes.escaped(message)
    }

    public var description: String { message }
}
