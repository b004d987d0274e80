/// One signal sent to a child's tree by the sigstop freezer, and whom it reached: it is sent
/// to the members known, then again after each scan to the members that turned up since (a
/// member may fork between a scan and its signal), until a scan finds none.
struct TreeSignal {
    let signal: Int32
    /// Every process this signal was sent to: none is sent it twice.
    private(set) var reached: Set<ProcessIdentity> = []
    private(set) var rounds = 0

    /// A tree that keeps forking after a signal it ignores must not hold the supervisor: a
    /// signal is sent in this many rounds at most. A process with SIGKILL pending can't fork,
    /// so a kill closes sooner.
    static let maxRounds = 8

    init(signal: Int32) {
        self.signal = signal
    }

    /// Sends the signal to each of `members` not reached yet (a pid that names another process
    /// since is not signalled); whether it must be sent again after the next scan: it reached
    /// someone new and has rounds left.
    mutating func send(to members: Set<ProcessIdentity>, _ procFS: ProcFS) -> Bool {
        let fresh = members.subtracting(reached)
        guard !fresh.isEmpty, rounds < Self.maxRounds else { return false }
        for process in fresh { procFS.signal(process, signal) }
        reached.formUnion(fresh)
        rounds += 1
        return rounds < Self.maxRounds
    }
}
