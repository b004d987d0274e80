/// The checks of one sigstop freeze of a child's tree, as the steps they ask for and the answers
/// they take. No I/O: the unit carries out each step (``SignalStopUnit``), so a check can stop
/// after any step and go on at the next turn of the loop (``SliceBudget``).
///
/// A check is a round. Every member not stopped yet is sent SIGSTOP; a round that sent one ends
/// there, not frozen: a stop takes effect only once the kernel runs the process. Then every
/// process stopped is looked at, and one that runs ends the round. Then the tree is walked down
/// its children links from the members (`/proc/PID/task/TID/children`), and last the
/// supervisor's own children, where a process whose parent exits mid-walk goes. The tree is
/// frozen when every stopped process was halted and the walk, which began after those looks,
/// found no process not stopped: a stopped process can't fork. What the walk finds is stopped
/// and walked into, and the round ends not frozen: the next one looks at it.
struct FreezeWalk {
    /// What the walk asks the unit to do next.
    enum Step: Equatable {
        /// Send SIGSTOP to this member.
        case stop(ProcessIdentity)
        /// Look whether it is halted: answer ``looked(_:_:)``.
        case look(ProcessIdentity)
        /// List its children, every thread's (`threads` as its look or its adoption counted
        /// them: one thread's children are read without listing them): answer ``found(children:)``.
        case listChildren(ProcessIdentity, threads: Int)
        /// Read the process `pid`, a child of `parent` the walk found, and stop it unless it is
        /// gone, has another parent by now, or (`byName`: an orphan of the supervisor) belongs to
        /// another child: answer ``adopted(_:)``.
        case adopt(pid: Int32, parent: Int32, byName: Bool)
        /// List the supervisor's children (orphans among them), in a listing made after this
        /// step was asked for: answer ``found(children:)``.
        case listOrphans
    }

    /// What a look at one stopped process found.
    enum Look: Equatable {
        /// Every thread is stopped (or parked in vfork); `timesRun` is how many times the kernel
        /// ran it (schedstat), `nil` when the kernel can't tell; it has `threads` threads; `stat`
        /// is the process's own stat the look read.
        case halted(timesRun: UInt64?, threads: Int, stat: ProcessStat)
        case running
        case gone
    }

    enum Verdict: Equatable {
        case frozen
        case notFrozen
    }

    private enum Phase {
        case stopping, looking, walking
    }

    /// The supervisor's pid, whose children are the orphans; `nil` when no one is a subreaper.
    let adopter: Int32?
    /// Every process this freeze sent SIGSTOP: the thaw continues exactly these.
    private(set) var stopped: Set<ProcessIdentity> = []
    /// The tree: the members known when the round began, then those the walk reached.
    private(set) var members: Set<ProcessIdentity>
    /// The rounds begun, counting from 1.
    private(set) var round = 0
    /// Whether the walk waits for the answer to ``Step/listOrphans``.
    var awaitsOrphans: Bool { awaiting == .listOrphans }
    /// The last round's verdict, once it has one.
    private(set) var verdict: Verdict?
    /// The schedstat counts of the stopped processes at the looks of the round that found the
    /// tree frozen; `nil` when one can't be told.
    private(set) var timesRun: [ProcessIdentity: UInt64]? = [:]
    /// The stats of the stopped processes at the looks of the round that found the tree frozen:
    /// a stopped process's CPU time and memory stand still, so the freeze's snapshot is taken
    /// from them, without reading each process again.
    private(set) var stats: [ProcessIdentity: ProcessStat] = [:]

    private var phase = Phase.stopping
    private var pending: [Step] = []
    /// The pids the walk of this round has reached or queued.
    private var seen: Set<Int32> = []
    private var sentStops = false
    private var foundNew = false
    private var orphansListed = false
    private var awaiting: Step?
    /// How many threads each member had at its look or adoption.
    private var threads: [ProcessIdentity: Int] = [:]

    /// A freeze of the tree of `members`.
    init(members: Set<ProcessIdentity>, adopter: Int32?) {
        self.members = members
        self.adopter = adopter
        beginRound(members: members)
    }

    /// Begins the next round (the next check) from `members`, the tree as last known.
    mutating func beginRound(members: Set<ProcessIdentity>) {
        self.members = self.members.union(members)
        round += 1
        verdict = nil
        phase = .stopping
        pending = self.members.subtracting(stopped).map(Step.stop)
        sentStops = false
        foundNew = false
        orphansListed = false
        awaiting = nil
        seen = []
    }

    /// The step to carry out next; `nil` once the round has its ``verdict``.
    mutating func nextStep() -> Step? {
        precondition(awaiting == nil, "the last step is not answered yet")
        while verdict == nil {
            if let step = pending.popLast() {
                if case .stop(let process) = step {
                    stopped.insert(process)
                    sentStops = true
                    return step
                }
                awaiting = step
                return step
            }
            advance()
        }
        return nil
    }

    /// The phase's steps are all done: moves to the next phase, or to the verdict.
    private mutating func advance() {
        switch phase {
        case .stopping:
            guard !sentStops else { return verdict = .notFrozen }
            phase = .looking
            timesRun = [:]
            stats = [:]
            pending = stopped.map(Step.look)
        case .looking:
            phase = .walking
            members = members.intersection(stopped)
            seen = Set(members.map(\.pid))
            pending = members.map { .listChildren($0, threads: threads[$0] ?? 0) }
        case .walking:
            if let adopter, !orphansListed {
                orphansListed = true
                pending = [.listOrphans]
                seen.insert(adopter)
                return
            }
            verdict = foundNew ? .notFrozen : .frozen
        }
    }

    /// The answer to ``Step/look(_:)``: a running process ends the round, not frozen; a gone one
    /// leaves the tree.
    mutating func looked(_ process: ProcessIdentity, _ look: Look) {
        awaiting = nil
        switch look {
        case .halted(let count, let threads, let stat):
            self.threads[process] = threads
            stats[process] = stat
            if let count, timesRun != nil { timesRun?[process] = count } else { timesRun = nil }
        case .running:
            pending = []
            verdict = .notFrozen
        case .gone:
            members.remove(process)
        }
    }

    /// The answer to ``Step/listChildren(_:)`` or ``Step/listOrphans``: the pids found there,
    /// each read and adopted unless the walk has reached it already.
    mutating func found(children: [Int32]) {
        guard let step = awaiting else { return }
        awaiting = nil
        let (parent, byName): (Int32, Bool) = switch step {
        case .listChildren(let process, _): (process.pid, false)
        default: (adopter ?? 0, true)
        }
        for pid in children where seen.insert(pid).inserted {
            pending.append(.adopt(pid: pid, parent: parent, byName: byName))
        }
    }

    /// The answer to ``Step/adopt(pid:parent:byName:)``: the process, now sent SIGSTOP, with
    /// `threads` threads, is a member found new, and is walked into; `nil` when it was not adopted.
    mutating func adopted(_ process: ProcessIdentity?, threads: Int = 1) {
        awaiting = nil
        guard let process else { return }
        members.insert(process)
        stopped.insert(process)
        foundNew = true
        self.threads[process] = threads
        pending.append(.listChildren(process, threads: threads))
    }
}
