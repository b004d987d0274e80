/// The kinds of timeline entries in the report.
public enum TimelineKind: String, Sendable {
    case state, event, request, error, violation, freeze, note
}

/// What happened to one child, in order, in milliseconds since the supervisor started.
///
/// State changes, violations, freezes and notes are always kept; of the protocol
/// messages (events, requests, errors) the first ``messageLimit`` are kept and the rest counted.
public struct Timeline: Sendable {
    public struct Entry: Equatable, Sendable {
        public var milliseconds: Double
        public var kind: TimelineKind
        public var text: String
    }

    public static let messageLimit = 10_000

    public private(set) var entries: [Entry] = []
    public private(set) var messagesKept = 0
    public private(set) var messagesDropped = 0
    let origin: Instant

    public init(origin: Instant) { self.origin = origin }

    /// Whether another protocol message would still be kept (so callers can skip building its text).
    public var keepsMessages: Bool { messagesKept < Self.messageLimit }

    public mutating func append(_ kind: TimelineKind, _ text: @autoclosure () -> String, at instant: Instant) {
        switch kind {
        case .event, .request, .error:
            guard keepsMessages else {
                messagesDropped += 1
                return
            }
            messagesKept += 1
        case .state, .violation, .freeze, .note:
            break
        }
        entries.append(Entry(milliseconds: instant.milliseconds(since: origin), kind: kind, text: text()))
    }
}
