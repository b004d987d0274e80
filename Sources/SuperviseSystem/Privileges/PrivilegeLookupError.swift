/// A user, group or capability name that doesn't resolve: one line for the user, without the
/// option or key it came from (the caller adds that).
public struct PrivilegeLookupError: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}
