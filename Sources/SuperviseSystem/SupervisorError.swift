/// A failure of the supervisor itself (exit status 125), or of one child's setup.
///
/// `message` is one line for the user: what happened, to what, and what to do.
public struct SupervisorError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The requested freezer can't work here.
        case freezerUnavailable
        /// A freezer operation failed at run time.
        case freezer
        /// The child could not be started (exec failed: status 127 or 126).
        case spawn(status: Int32)
        /// Any other system call the supervisor depends on failed.
        case system
    }

    public var code: Code
    public var message: String
    /// The errno behind it, when there is one.
    public var errno: Int32?

    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { message }
}
