import Foundation
import SuperviseTestSupport

/// Checks what `supervise` says against the processes themselves, at the moments it says it: each
/// `status` answer (alone, or once a `wait` released it) is compared with `/proc`, the cgroup files
/// and the beats of `Workers/truth-worker.sh`.
///
/// - `active`, `background`: no process of the tree is stopped or frozen, and every live beater beats.
/// - `suspended`: every process of the tree is frozen (cgroup2 `frozen 1`, cgroup1 `FROZEN`, sigstop
///   every thread in `T`, or in `D` parked in vfork), and no beat advances.
/// - `exited`: the main process is gone. Once the run is over (`leftovers`), so is the whole tree and its cgroup.
///
/// The tree is the child's cgroup (and those below it) for cgroup backends; for sigstop, every
/// descendant of the supervisor, which is a subreaper, so orphans stay below it.
final class TruthMonitor {
    /// What one look at the supervisor gave.
    enum Observation: Equatable {
        /// It said STATE, and the processes agree.
        case truthful(String)
        /// It said something the processes contradict, twice.
        case lie(String)
        /// It ended before answering.
        case ended
        /// It is running but did not answer in time.
        case silent
    }

    let backend: Backend
    let supervise: LiveSupervise
    let worker: TruthWorker
    /// How long a live beater may take to beat before it counts as not running.
    let beatBound = 3.0
    /// How long a suspended tree is watched for beats.
    let stillnessInterval = 0.3

    /// Every process ever seen in the child's tree, for the check that nothing is left.
    private(set) var seen: Set<ProcessIdentity> = []
    private(set) var main: ProcessIdentity?
    private(set) var cgroup: String?
    /// The states `status` showed, in order.
    private(set) var observedStates: [String] = []
    /// The stdin lines of `wait` commands that the following `status` showed failed, and of those it never answered.
    private(set) var failedWaits: Set<Int> = []
    private(set) var unansweredWaits: Set<Int> = []
    /// Disagreements that were gone at the second look (the state moved on by itself, or a beat came late).
    private(set) var cleared: [String] = []

    init(backend: Backend, supervise: LiveSupervise, worker: TruthWorker) {
        self.backend = backend
        self.supervise = supervise
        self.worker = worker
    }

    /// Asks `status` and checks the answer. `signalled`: a signal was just sent to the supervisor, which
    /// it may handle only after this `status`.
    func status(timeout: Double = 30, signalled: Bool = false) -> Observation {
        supervise.send(["status"])
        return observe(timeout: timeout, signalled: signalled)
    }

    /// Writes `wait STATE timeout=…` and `status`, and checks the answer once the wait is over.
    func wait(_ state: String, timeout: Double, signalled: Bool = false) -> Observation {
        let line = supervise.send(["wait \(state) timeout=\(Self.seconds(timeout))", "status"])[0]
        let answered = observedStates.count
        let observation = observe(timeout: timeout + 30, signalled: signalled)
        if observedStates.count == answered {
            unansweredWaits.insert(line)
        } else if observedStates[answered] != state {
            failedWaits.insert(line)
        }
        return observation
    }

    /// Reads the next status answer and checks it. A disagreement is looked at again 0.3 s later with a
    /// fresh `status`: only one that holds while the supervisor still says the same is a lie. A state
    /// that moved on by itself is not judged, except `active`, which has no timer: unless a signal was
    /// on its way, it can only have moved to `exited`.
    private func observe(timeout: Double, signalled: Bool) -> Observation {
        guard var said = answer(timeout: timeout) else { return supervise.hasEnded ? .ended : .silent }
        for _ in 0..<3 {
            let problems = problems(in: said, anyWillDo: true)
            if problems.isEmpty { return .truthful(said.state) }
            // The point: the second look comes later, so a state passing through is not called a lie.
            Thread.sleep(forTimeInterval: 0.3)
            supervise.send(["status"])
            guard let again = answer(timeout: 30) else { return supervise.hasEnded ? .ended : .silent }
            if said.state == "active", again.state != "exited", again.state != "active", !signalled {
                return .lie("status said active, then \(again.state) 0.3 s later with nothing asked in between; "
                            + "at the first look " + problems.joined(separator: "; "))
            }
            guard again.state == said.state else {
                cleared.append("\(said.state), then \(again.state): " + problems.joined(separator: "; "))
                said = again
                continue
            }
            let still = self.problems(in: again)
            if still.isEmpty {
                cleared.append("\(said.state) twice: " + problems.joined(separator: "; "))
                return .truthful(again.state)
            }
            return .lie("status said \(said.state) twice, 0.3 s apart, but " + still.joined(separator: "; "))
        }
        // The state kept moving by itself: nothing stood still long enough to judge.
        return .truthful(said.state)
    }

    private func answer(timeout: Double) -> StatusLine? {
        guard let said = supervise.nextStatus(timeout: timeout) else { return nil }
        observedStates.append(said.state)
        if cgroup == nil { cgroup = said.cgroup }
        if main == nil, said.pid > 0 { main = ProcessInspector.snapshot(said.pid)?.identity }
        return said
    }

    /// What the processes contradict in `said`; empty when they agree. With `anyWillDo` (a first
    /// look, which needs only one disagreement to look again and check everything), the beats,
    /// watched for up to `beatBound`, are looked at only when nothing else disagrees.
    func problems(in said: StatusLine, anyWillDo: Bool = false) -> [String] {
        let tree = treeProcesses(said)
        remember(tree)
        if said.freezer != backend.rawValue { return ["it uses \(said.freezer), not the \(backend.rawValue) asked for"] }
        switch said.state {
        case "active", "background":
            var problems = tree.filter { ProcessInspector.isStopped($0.pid) }.map { "\(describe($0.pid)) is stopped (T)" }
            if let freezer = freezerState(said), freezer != "0", freezer != "THAWED" {
                problems.append("the freezer says \(freezer)")
            }
            if !anyWillDo || problems.isEmpty {
                problems += beatsThatStopped().map { "\($0) did not beat in \(beatBound) s" }
            }
            return problems
        case "suspended":
            var problems: [String] = []
            if backend == .sigstop {
                problems += tree.filter { !$0.isDead && !ProcessInspector.isHalted($0.pid) }.map { "\(describe($0.pid)) is running" }
            } else if let freezer = freezerState(said), freezer != "1", freezer != "FROZEN" {
                problems.append("the freezer says \(freezer)")
            }
            if !anyWillDo || problems.isEmpty { problems += beatsThatMoved().map { "\($0) beat" } }
            return problems
        case "exited":
            guard let main, main.isAlive else { return [] }
            return ["its main process \(describe(main.pid)) is still alive"]
        default:
            return []
        }
    }

    /// After the run: what is left of the tree and of its cgroups (waiting a few seconds for it to go).
    func leftovers() -> [String] {
        var left: [ProcessIdentity] = []
        // The list is the answer, a timeout included: empty once every process went.
        _ = eventually(timeout: 3) {
            left = seen.filter(\.isAlive).sorted { $0.pid < $1.pid }
            return left.isEmpty
        }
        var problems = left.map { "\(describe($0.pid)) was left running after supervise exited" }
        // The child's cgroup and the supervisor's own one around it.
        let directories = [cgroup, cgroup.map(SupervisorCgroups.owning)].compactMap { $0 }
        for directory in directories where FileManager.default.fileExists(atPath: directory) {
            problems.append("cgroup \(directory) was left behind")
        }
        return problems
    }

    /// Kills what the run left of the tree: only processes seen in it, checked by identity just before.
    func cleanUp() {
        for identity in seen where identity.isAlive { kill(identity.pid, SIGKILL) }
    }

    // MARK: The tree

    private func treeProcesses(_ said: StatusLine) -> [ProcessEntry] {
        if backend != .sigstop, let cgroup = said.cgroup {
            return ProcessInspector.cgroupMembers(cgroup).compactMap(ProcessInspector.snapshot)
        }
        return ProcessInspector.descendants(of: supervise.pid)
    }

    private func remember(_ tree: [ProcessEntry]) {
        seen.formUnion(tree.filter { !$0.isDead }.map(\.identity))
        seen.formUnion(ProcessInspector.descendants(of: supervise.pid).filter { !$0.isDead }.map(\.identity))
        seen.formUnion(TruthWorker.beaters.compactMap(worker.identity))
    }

    /// `frozen` from cgroup2's `cgroup.events`, or cgroup1's `freezer.state`; nil for sigstop or a cgroup that is gone.
    private func freezerState(_ said: StatusLine) -> String? {
        guard let cgroup = said.cgroup else { return nil }
        switch backend {
        case .cgroup2: return ProcessInspector.keyedValue(cgroup + "/cgroup.events", "frozen")
        case .cgroup1: return ProcessInspector.read(cgroup + "/freezer.state")
        case .sigstop: return nil
        }
    }


    // MARK: Beats

    /// The live beaters that did not beat within `beatBound`.
    private func beatsThatStopped() -> [String] {
        let before = Dictionary(uniqueKeysWithValues: worker.living.map { ($0, worker.beats($0)) })
        var stuck: [String] = []
        // The list is the answer, a timeout included: empty once every beater beat.
        _ = eventually(timeout: beatBound) {
            stuck = before.keys.filter { worker.beats($0) == before[$0] }.sorted()
            return stuck.isEmpty
        }
        return stuck.filter { worker.identity($0)?.isAlive == true }.map(describe(beater:))
    }

    /// The beaters that beat during `stillnessInterval`.
    private func beatsThatMoved() -> [String] {
        let before = Dictionary(uniqueKeysWithValues: TruthWorker.beaters.map { ($0, worker.beats($0)) })
        // The point: a window in which every running beater beats.
        Thread.sleep(forTimeInterval: stillnessInterval)
        return TruthWorker.beaters.filter { worker.beats($0) != before[$0] }.map(describe(beater:))
    }

    // MARK: Words

    private func describe(beater: String) -> String {
        "beater \(beater)" + (worker.identity(beater).map { " (pid \($0.pid))" } ?? "")
    }

    private func describe(_ pid: Int32) -> String {
        if let beater = worker.beater(of: pid) { return "pid \(pid) (\(beater))" }
        let name = ProcessInspector.read("/proc/\(pid)/comm") ?? "gone"
        return "pid \(pid) (\(name))"
    }

    static func seconds(_ value: Double) -> String { String(format: "%.4f", value) }
}
