/// How much of the sigstop freezer's work one turn of the loop does: at most
/// ``stepsPerTurn`` steps of its freeze walks (``FreezeWalk/Step``: each reads one or two files
/// of one process, or stops it), shared by every check in the turn. A check that finds the
/// budget spent answers that it goes on at the next turn, after the loop has taken its other
/// inputs (`status`, `ctl`, signals); ``SignalStopFreezer/endMoment()`` renews it.
struct SliceBudget {
    /// 64 steps read at most ~200 files: about a millisecond, a few in a debug build.
    static let stepsPerTurn = 64

    private(set) var left = Self.stepsPerTurn

    /// Takes one step from this turn's budget; `false` when it is spent.
    mutating func take() -> Bool {
        guard left > 0 else { return false }
        left -= 1
        return true
    }

    /// A new turn: the whole budget again.
    mutating func renew() {
        left = Self.stepsPerTurn
    }
}
