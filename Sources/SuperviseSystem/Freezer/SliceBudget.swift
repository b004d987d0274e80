/// How much of the sigstop freezer's work one turn of the loop does: at most
/// ``stepsPerTurn`` steps of its freeze walks (``FreezeWalk/Step``: each reads one or two files
/// of one process, or stops it), of its looks for a change from outside (a stopped
/// process's stat and schedstat) and of its thaws (``ThawWalk/Step``), shared by every check,
/// look and thaw in the turn. One that finds
/// the budget spent, or its own share of it, answers that it goes on at the next turn, after
/// the loop has taken its other inputs (`status`, `ctl`, signals);
/// ``SignalStopFreezer/endMoment()`` renews it.
struct SliceBudget {
    /// 256 steps read at most ~800 files: a few milliseconds (more in a debug build), in
    /// proportion to what a turn of the loop costs anyway with many children (64 made `background
    /// all` of 1,000 children take twice as long, turns that tick every child).
    static let stepsPerTurn = 256
    /// The least share of one check, however many are under way.
    static let leastShare = 8

    private(set) var left = Self.stepsPerTurn
    /// How many steps one check or look may take this turn: an equal part of the budget for
    /// each freeze or look under way when the turn began (at least ``leastShare``), so that one
    /// child's large tree does not hold back the child checked after it.
    private(set) var share = Self.stepsPerTurn

    /// Takes one step from this turn's budget; `false` when it is spent.
    mutating func take() -> Bool {
        guard left > 0 else { return false }
        left -= 1
        return true
    }

    /// Takes one step for a check, look or thaw that has taken `taken` this turn, counting it;
    /// `false` when its share or the budget is spent.
    mutating func take(counting taken: inout Int) -> Bool {
        guard taken < share, take() else { return false }
        taken += 1
        return true
    }

    /// A new turn, with `freezes` freezes, looks or thaws under way: the whole budget again,
    /// shared among them.
    mutating func renew(freezes: Int) {
        left = Self.stepsPerTurn
        share = max(Self.leastShare, Self.stepsPerTurn / max(1, freezes))
    }
}
