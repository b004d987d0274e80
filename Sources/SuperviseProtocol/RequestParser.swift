/// Parses request lines (child → supervisor), deciding the errors that depend on the line
/// alone: `unknown-request`, `bad-utf8`, `bad-id`, `bad-version` (a version other than 1)
/// `stale-done` (a missing or malformed SEQ), `bad-schedule` (a malformed `schedule`) and
/// `bad-outcome` (a `task-completed` that is neither `success` nor `failure`).
///
/// The errors that depend on the child's state (`duplicate-id`, `unknown-id`,
/// `too-many-tasks`, `too-many-schedules`, a second `hello`, a SEQ that is not the current
/// one) are the lifecycle's to decide.
public enum RequestParser {
    /// Parses one line, without its newline.
    ///
    /// Returns `nil` for an empty line, which is ignored. Fields are separated by one
    /// space; extra fields after `hello 1`, `done SEQ`, `end ID`, `cancel ID` and
    /// `task-completed ID OUTCOME` are ignored (a `schedule` has none: an option it does not
    /// know would be a condition or a time ignored). In
    /// `begin ID NAME`, NAME is the rest of the line and may hold spaces; an empty NAME is
    /// `nil`.
    public static func parse(_ line: some Collection<UInt8>) -> Result<Request, RequestError>? {
        Bytes.withContiguous(line) { bytes in
            guard !bytes.isEmpty else { return nil }
            return parse(bytes).mapError { RequestError(code: $0.code, rawRequest: bytes) }
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Request, Rejection> {
        guard Bytes.isValidUTF8(bytes) else { return .failure(Rejection(.badUTF8)) }
        let verb = Bytes.field(in: bytes, from: 0)
        if Bytes.equals(bytes, verb.range, "begin") {
            return parseBegin(bytes, argumentsAt: verb.next)
        }
        if Bytes.equals(bytes, verb.range, "end") {
            return taskID(bytes, at: verb.next).map { .end(id: $0) }
        }
        if Bytes.equals(bytes, verb.range, "done") {
            guard let start = verb.next,
                  let seq = Bytes.decimal(bytes, Bytes.field(in: bytes, from: start).range), seq > 0
            else { return .failure(Rejection(.staleDone)) }
            return .success(.done(seq: seq))
        }
        if Bytes.equals(bytes, verb.range, "schedule") {
            return parseSchedule(bytes, argumentsAt: verb.next)
        }
        if Bytes.equals(bytes, verb.range, "cancel") {
            return taskID(bytes, at: verb.next).map { .cancel(id: $0) }
        }
        if Bytes.equals(bytes, verb.range, "task-completed") {
            return parseTaskCompleted(bytes, argumentsAt: verb.next)
        }
        if Bytes.equals(bytes, verb.range, "hello") {
            guard let start = verb.next,
                  Bytes.decimal(bytes, Bytes.field(in: bytes, from: start).range) == UInt64(protocolVersion)
            else { return .failure(Rejection(.badVersion)) }
            return .success(.hello)
        }
        return .failure(Rejection(.unknownRequest))
    }

    private static func parseBegin(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        guard let (id, next) = leadingID(bytes, at: start) else { return .failure(Rejection(.badID)) }
        guard let nameStart = next, nameStart < bytes.count else {
            return .success(.begin(id: id, name: nil))
        }
        return .success(.begin(id: id, name: Bytes.string(bytes, nameStart..<bytes.count)))
    }

    /// `schedule ID KIND [earliest=DURATION] [requires=COND[,COND…]]`, the options in any
    /// order, each at most once.
    private static func parseSchedule(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        guard let (id, afterID) = leadingID(bytes, at: start) else { return .failure(Rejection(.badID)) }
        guard let kindStart = afterID else { return .failure(Rejection(.badSchedule)) }
        let kindField = Bytes.field(in: bytes, from: kindStart)
        guard let kind = ScheduledTaskKind(rawValue: Bytes.string(bytes, kindField.range)) else {
            return .failure(Rejection(.badSchedule))
        }
        var request = ScheduleRequest(id: id, kind: kind)
        var seenEarliest = false, seenRequires = false
        var next = kindField.next
        while let optionStart = next {
            let option = Bytes.field(in: bytes, from: optionStart)
            next = option.next
            let text = Bytes.string(bytes, option.range)
            if text.hasPrefix("earliest="), !seenEarliest,
               let milliseconds = ScheduleDuration.milliseconds(text.dropFirst("earliest=".count)) {
                seenEarliest = true
                request.earliestMS = milliseconds
            } else if text.hasPrefix("requires="), !seenRequires,
                      let conditions = conditions(text.dropFirst("requires=".count)) {
                seenRequires = true
                request.requires = conditions
            } else {
                return .failure(Rejection(.badSchedule))
            }
        }
        return .success(.schedule(request))
    }

    /// `COND[,COND…]`, each a ``ScheduleCondition``; `nil` for an empty or unknown one.
    private static func conditions(_ text: Substring) -> Set<ScheduleCondition>? {
        var conditions: Set<ScheduleCondition> = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let condition = ScheduleCondition(rawValue: String(word)) else { return nil }
            conditions.insert(condition)
        }
        return conditions
    }

    private static func parseTaskCompleted(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        guard let (id, next) = leadingID(bytes, at: start) else { return .failure(Rejection(.badID)) }
        guard let outcomeStart = next else { return .failure(Rejection(.badOutcome)) }
        let outcome = Bytes.field(in: bytes, from: outcomeStart).range
        if Bytes.equals(bytes, outcome, "success") { return .success(.taskCompleted(id: id, success: true)) }
        if Bytes.equals(bytes, outcome, "failure") { return .success(.taskCompleted(id: id, success: false)) }
        return .failure(Rejection(.badOutcome))
    }

    private static func taskID(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int?) -> Result<TaskID, Rejection> {
        guard let (id, _) = leadingID(bytes, at: start) else { return .failure(Rejection(.badID)) }
        return .success(id)
    }

    /// The task ID in the field at `start`, and where the next field starts; `nil` when there
    /// is no field or it is no valid ID.
    private static func leadingID(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int?) -> (TaskID, next: Int?)? {
        guard let start else { return nil }
        let field = Bytes.field(in: bytes, from: start)
        guard let id = TaskID(bytes, field.range) else { return nil }
        return (id, field.next)
    }
}

/// A line-level error code, carried through `Result` until the request text is attached.
private struct Rejection: Error {
    let code: ProtocolErrorCode
    init(_ code: ProtocolErrorCode) { self.code = code }
}

extension TaskID {
    /// The identifier spelled by `bytes[range]`, or `nil` unless it is valid.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard TaskID.isValid(UnsafeBufferPointer(rebasing: bytes[range])) else { return nil }
        rawValue = Bytes.string(bytes, range)
    }
}
