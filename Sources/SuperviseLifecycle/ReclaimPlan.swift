/// Which suspended children to reclaim, and in what order: so that the memory of those left
/// fits a budget (`--suspended-memory`), or one at a time under memory pressure
/// (``MemoryPressure``).
public enum ReclaimPlan {
    /// A suspended child that may be reclaimed.
    public struct Candidate: Equatable, Sendable {
        /// Its place in the config (launch) order.
        public var order: Int
        /// When it was last verified frozen.
        public var suspendedSince: Instant
        /// Lower is reclaimed first between children suspended at the same instant.
        public var priority: Int
        /// Its resident memory when its freeze was verified.
        public var bytes: UInt64

        public init(order: Int, suspendedSince: Instant, priority: Int, bytes: UInt64) {
            self.order = order
            self.suspendedSince = suspendedSince
            self.priority = priority
            self.bytes = bytes
        }
    }

    /// The `order` of each candidate to reclaim, in the order to reclaim them: the one
    /// suspended longest first (then the lower priority, then the earlier in the config),
    /// until the memory of those left is at most `budget`. Empty when all fit.
    public static func victims(_ candidates: [Candidate], budget: UInt64) -> [Int] {
        var total = candidates.reduce(UInt64(0)) { $0 &+ $1.bytes }
        guard total > budget else { return [] }
        var chosen: [Int] = []
        for candidate in sorted(candidates) where total > budget {
            chosen.append(candidate.order)
            total -= candidate.bytes
        }
        return chosen
    }

    /// The `order` of every candidate, in the order any reclaim takes them (memory pressure's
    /// one at a time too): the one suspended longest first, then the lower priority, then the
    /// earlier in the config.
    public static func order(_ candidates: [Candidate]) -> [Int] {
        sorted(candidates).map(\.order)
    }

    private static func sorted(_ candidates: [Candidate]) -> [Candidate] {
        candidates.sorted {
            ($0.suspendedSince, $0.priority, $0.order) < ($1.suspendedSince, $1.priority, $1.order)
        }
    }
}
