/// A step that sets up a real program for a test (initdb, a config, a free port) and could not be done.
struct SetupFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
