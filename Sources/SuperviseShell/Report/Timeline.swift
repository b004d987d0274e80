import SuperviseLifecycle
/// The kinds of timeline entries in the report.
public enum TimelineKind: String, Sendable {
    case state, event, request, error, violation, freeze, note

    /// A protocol message (event, request or error), as opposed to a lifecycle entry.
    var isMessage: Bool { self == .event || self == .request || self == .error }
}

/// What happened to one child, in order, in milliseconds since the supervisor started.
///
/// Bounded however long the run: of the protocol messages (events, requests, errors) the
/// first ``messageLimit`` are kept; of the lifecycle entries (states, violations, freezes,
/// notes) the first and the last ``lifecycleLimit``. The rest are counted.
public struct Timeline: Sendable {
    public struct Entry: Equatable, Sendable {
        public var milliseconds: Double
        public var kind: TimelineKind
        public var text: String
    }

    /// An entry with its place in the whole sequence, so the two groups merge back in order.
    private struct Numbered: Sendable {
        var number: Int
        var entry: Entry
    }

    public static let messageLimit = 10_000
    /// How many lifecycle entries are kept at each end.
    public static let lifecycleLimit = 5_000

    private var messages = HeadTailBuffer<Numbered>(headLimit: messageLimit, tailLimit: 0)
    private var lifecycle = HeadTailBuffer<Numbered>(headLimit: lifecycleLimit, tailLimit: lifecycleLimit)
    private var count = 0
    let origin: Instant

    public init(origin: Instant) { self.origin = origin }

    /// Whether another protocol message would still be kept (so callers can skip building its text).
    public var keepsMessages: Bool { messages.keepsNext }
    /// Protocol messages not kept.
    public var messagesDropped: Int { messages.omitted }
    /// State, violation, freeze and note entries not kept (between the first and the last kept).
    public var lifecycleEntriesDropped: Int { lifecycle.omitted }

    /// The kept entries, in the order they were recorded.
    public var entries: [Entry] {
        (messages.elements + lifecycle.elements).sorted { $0.number < $1.number }.map(\.entry)
    }

    public mutating func append(_ kind: TimelineKind, _ text: @autoclosure () -> String, at instant: Instant) {
        count += 1
        let kept = kind.isMessage ? messages.keepsNext : lifecycle.keepsNext
        let entry = Entry(milliseconds: instant.milliseconds(since: origin), kind: kind, text: kept ? text() : "")
        if kind.isMessage {
            messages.append(Numbered(number: count, entry: entry))
        } else {
            lifecycle.append(Numbered(number: count, entry: entry))
        }
    }
}
