/// Keeps the first ``headLimit`` and the last ``tailLimit`` elements appended, and counts
/// the ones in between: a record that stays bounded however long the run, yet shows how it
/// began and how it ended.
public struct HeadTailBuffer<Element> {
    public let headLimit: Int
    public let tailLimit: Int
    private var head: [Element] = []
    /// A ring of the last elements once the head is full; its oldest is at `tailStart`.
    private var tail: [Element] = []
    private var tailStart = 0
    /// Elements appended but no longer kept.
    public private(set) var omitted = 0

    public init(headLimit: Int, tailLimit: Int) {
        self.headLimit = headLimit
        self.tailLimit = tailLimit
    }

    /// Whether the next element appended would be kept (so callers can skip building it).
    public var keepsNext: Bool { head.count < headLimit || tailLimit > 0 }

    /// Appends `element`; returns the element it made the buffer let go of, if any: the oldest of
    /// the tail, or `element` itself once the head is full and there is no tail.
    @discardableResult
    public mutating func append(_ element: Element) -> Element? {
        if head.count < headLimit {
            head.append(element)
            return nil
        }
        if tail.count < tailLimit {
            tail.append(element)
            return nil
        }
        omitted += 1
        guard tailLimit > 0 else { return element }
        let dropped = tail[tailStart]
        tail[tailStart] = element
        tailStart = (tailStart + 1) % tailLimit
        return dropped
    }

    /// How many elements are kept.
    public var keptCount: Int { head.count + tail.count }

    /// The kept elements, oldest first: the head, then the tail.
    public var elements: [Element] {
        head + tail[tailStart...] + tail[..<tailStart]
    }
}

extension HeadTailBuffer: Sendable where Element: Sendable {}
