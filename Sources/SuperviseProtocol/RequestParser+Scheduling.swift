extension RequestParser {
    /// Parses `schedule`, `cancel` and `task-completed`; `nil` for any other verb.
    ///
    /// A bad ID is `bad-id`; any other malformed field (a kind other than `refresh` or
    /// `processing`, an `earliest=` that is not `DIGITSms`, an empty condition, an unknown
    /// option, a result other than `success` or `failure`) is `unknown-request`.
    static func parseScheduling(
        _ bytes: UnsafeBufferPointer<UInt8>, verb: (range: Range<Int>, next: Int?)
    ) -> Result<Request, Rejection>? {
        if Bytes.equals(bytes, verb.range, "cancel") {
            return taskID(bytes, at: verb.next).map { .cancel(id: $0) }
        }
        if Bytes.equals(bytes, verb.range, "task-completed") {
            return parseTaskCompleted(bytes, argumentsAt: verb.next)
        }
        if Bytes.equals(bytes, verb.range, "schedule") {
            return parseSchedule(bytes, argumentsAt: verb.next)
        }
        return nil
    }

    private static func parseTaskCompleted(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        taskIDAndNext(bytes, at: start).flatMap { id, next in
            guard let next else { return .failure(Rejection(.unknownRequest)) }
            let result = Bytes.field(in: bytes, from: next).range
            if Bytes.equals(bytes, result, "success") { return .success(.taskCompleted(id: id, success: true)) }
            if Bytes.equals(bytes, result, "failure") { return .success(.taskCompleted(id: id, success: false)) }
            return .failure(Rejection(.unknownRequest))
        }
    }

    /// The task ID at `start`, and where the field after it starts.
    private static func taskIDAndNext(
        _ bytes: UnsafeBufferPointer<UInt8>, at start: Int?
    ) -> Result<(TaskID, Int?), Rejection> {
        guard let start else { return .failure(Rejection(.badID)) }
        let idField = Bytes.field(in: bytes, from: start)
        guard let id = TaskID(bytes, idField.range) else { return .failure(Rejection(.badID)) }
        return .success((id, idField.next))
    }

    private static func parseSchedule(
        _ bytes: UnsafeBufferPointer<UInt8>, argumentsAt start: Int?
    ) -> Result<Request, Rejection> {
        let id: TaskID, afterID: Int?
        switch taskIDAndNext(bytes, at: start) {
        case .success(let parsed): (id, afterID) = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        guard let kindStart = afterID else { return .failure(Rejection(.unknownRequest)) }
        let kindField = Bytes.field(in: bytes, from: kindStart)
        guard let kind = ScheduledTaskKind(rawValue: Bytes.string(bytes, kindField.range)) else {
            return .failure(Rejection(.unknownRequest))
        }
        var earliest: Duration?
        var requires: [String] = []
        var next = kindField.next
        while let fieldStart = next {
            let field = Bytes.field(in: bytes, from: fieldStart)
            next = field.next
            let text = Bytes.string(bytes, field.range)
            if let value = text.strippingPrefix("earliest="), earliest == nil,
               let milliseconds = Self.milliseconds(value) {
                earliest = .milliseconds(milliseconds)
            } else if let value = text.strippingPrefix("requires="), requires.isEmpty,
                      case let names = value.split(separator: ",", omittingEmptySubsequences: false),
                      !names.contains(where: \.isEmpty) {
                requires = names.map(String.init)
            } else {
                return .failure(Rejection(.unknownRequest))
            }
        }
        return .success(.schedule(id: id, kind: kind, earliest: earliest, requires: requires))
    }

    /// `DIGITSms` as a count of milliseconds that fits `Int64`.
    private static func milliseconds(_ text: Substring) -> Int64? {
        guard let digits = text.strippingSuffix("ms"), !digits.isEmpty,
              digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(digits)
    }
}

extension StringProtocol {
    fileprivate func strippingPrefix(_ prefix: String) -> SubSequence? {
        hasPrefix(prefix) ? self[index(startIndex, offsetBy: prefix.count)...] : nil
    }

    fileprivate func strippingSuffix(_ suffix: String) -> SubSequence? {
        hasSuffix(suffix) ? self[..<index(endIndex, offsetBy: -suffix.count)] : nil
    }
}
