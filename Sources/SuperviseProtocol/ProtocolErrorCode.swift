/// The codes of the `error CODE REQUEST` event.
public enum ProtocolErrorCode: String, Sendable, CaseIterable {
    case unknownRequest = "unknown-request"
    case lineTooLong = "line-too-long"
    case badUTF8 = "bad-utf8"
    case badID = "bad-id"
    case duplicateID = "duplicate-id"
    case unknownID = "unknown-id"
    case tooManyTasks = "too-many-tasks"
    case badVersion = "bad-version"
    case staleDone = "stale-done"
    /// A `schedule` whose fields are malformed: its kind, `earliest=`, `requires=`, or an option
    /// it does not know.
    case badSchedule = "bad-schedule"
    /// A `task-completed` whose outcome is neither `success` nor `failure`.
    case badOutcome = "bad-outcome"
    /// A `schedule` beyond the child's pending scheduled tasks (16).
    case tooManySchedules = "too-many-schedules"
}

/// A request the supervisor refused: the code and the offending request as received,
/// cut to 200 bytes with invalid UTF-8 replaced by U+FFFD.
public struct RequestError: Error, Equatable, Sendable {
    public var code: ProtocolErrorCode
    public var request: String

    public init(code: ProtocolErrorCode, request: String) {
        self.code = code
        self.request = request
    }
}
