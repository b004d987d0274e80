/// Parses request lines (child → supervisor), deciding the errors that depend on the line
/// alone: `unknown-request`, `bad-utf8`, `bad-id`, `bad-version` (a version other than 1)
/// and `stale-done` (a missing or malformed SEQ).
///
/// The errors that depend on the child's state (`duplicate-id`, `unknown-id`,
/// `too-many-tasks`, a second `hello`, a SEQ that is not the current one) are the
/// lifecycle's to decide.
public enum RequestParser {
    /// Parses one line, without its newline.
    ///
    /// Returns `nil` for an empty line, which is ignored. Fields are separated by one
    /// space; extra fields after `hello 1`, `done SEQ` and `end ID` are ignored. In
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
        if Bytes.equals(bytes, verb.range, "hello") {
            guard let start = verb.next,
                  Bytes.decimal(bytes, Bytes.field(in: bytes, from: start).range) == UInt64(protocolVersion)
            else { return .failure(Rejection(.badVersion)) }
            return .success(.hello)
        }
        if let scheduling = parseScheduling(bytes, verb: verb) { return scheduling }
        return .failure(Rejection(.unknownRequest))
    }

    private static func parseBegin(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        guard let start else { return .failure(Rejection(.badID)) }
        let idField = Bytes.field(in: bytes, from: start)
        guard let id = TaskID(bytes, idField.range) else { return .failure(Rejection(.badID)) }
        guard let nameStart = idField.next, nameStart < bytes.count else {
            return .success(.begin(id: id, name: nil))
        }
        return .success(.begin(id: id, name: Bytes.string(bytes, nameStart..<bytes.count)))
    }

    static func taskID(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int?) -> Result<TaskID, Rejection> {
        guard let start, let id = TaskID(bytes, Bytes.field(in: bytes, from: start).range) else {
            return .failure(Rejection(.badID))
        }
        return .success(id)
    }
}

/// A line-level error code, carried through `Result` until the request text is attached.
struct Rejection: Error {
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
