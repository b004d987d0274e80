/// What someone other than the supervisor did to a frozen unit, as a look at it finds
/// (``FreezerUnit/outsideChange()``).
public enum OutsideChange: Equatable, Sendable {
    /// It runs again; the text says what showed it (`cgroup.freeze says 0`).
    case thawed(String)
    /// Its main process has a SIGKILL pending that the freeze holds back (cgroup v1).
    case mainProcessKilled
    /// Nothing found yet: the look did this turn's share and goes on at the next turn
    /// (sigstop, a large tree, ``SliceBudget``).
    case lookGoesOn
}
