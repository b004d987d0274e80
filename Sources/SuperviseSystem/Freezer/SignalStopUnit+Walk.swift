import Glibc
import SystemPackage

/// The steps of a ``FreezeWalk``, carried out on `/proc`: what each reads and sends, no rule.
extension SignalStopUnit {
    /// Carries out `step` and gives `walk` its answer (the supervisor's children: at the end of
    /// the turn, ``SignalStopFreezer/listOrphans()``); the error of a stop that failed for
    /// another reason than the process being gone.
    func carryOut(_ step: FreezeWalk.Step, in walk: inout FreezeWalk) -> Errno? {
        switch step {
        case .stop(let process):
            return procFS.signal(process, SIGSTOP)
        case .look(let process):
            walk.looked(process, look(process))
        case .listChildren(let process, let threads):
            walk.found(children: children(of: process.pid, threads: threads, round: walk.round))
        case .listOrphans:
            freezer.awaitOrphans(self)
        case .adopt(let pid, let parent, let byName):
            let (process, threads) = adopt(pid, parent: parent, byName: byName)
            walk.adopted(process, threads: threads)
        }
        return nil
    }

    /// Whether every thread of `process` is stopped, or it is gone. A process with one thread
    /// is told by its own stat; the threads of one with more are each read.
    ///
    /// A thread in `vfork` waiting for its child counts as halted: dash runs commands with
    /// vfork, and when SIGSTOP stops the child before its exec the parent waits in `D`
    /// state, unable to run, until it is continued (the child is a member, checked itself).
    func look(_ process: ProcessIdentity) -> FreezeWalk.Look {
        guard let stat = procFS.stat(process) else { return .gone }
        let pid = process.pid
        let threads = stat.threads > 1 ? procFS.threadIDs(pid) : nil
        let halted = threads.map { ids in
            ids.allSatisfy { thread in procFS.threadStat(pid, thread: thread).map { isHalted($0, pid, thread) } ?? true }
        } ?? isHalted(stat, pid, String(pid))
        guard halted else { return .running }
        let count = procFS.timesRun(pid, threads: threads)
        // A count of 0 is a kernel that does not count: no process that ever ran has it.
        return .halted(timesRun: count == 0 ? nil : count, threads: threads?.count ?? 1, stat: stat)
    }

    /// The look at `process` for a change from outside since `walk` verified the freeze. A
    /// process with one thread then, held open (the main process), that the kernel has not put
    /// on a CPU since (the same `schedstat` count) is halted still, told by that count alone:
    /// its `stat` costs the kernel 5–40 µs, its `schedstat` 2–16. Continued from outside but
    /// not run yet, it is seen once it runs: its first act tells the supervisor, its parent
    /// (SIGCHLD, `CLD_CONTINUED`), which looks again. Any other process is looked at whole.
    func look(since walk: FreezeWalk, at process: ProcessIdentity) -> FreezeWalk.Look {
        guard let stat = walk.stats[process], stat.threads == 1, let before = walk.timesRun?[process],
              procFS.heldTimesRun(process) == before else { return look(process) }
        return .halted(timesRun: before, threads: 1, stat: stat)
    }

    private func isHalted(_ stat: ProcessStat, _ pid: Int32, _ thread: String) -> Bool {
        if stat.isHalted { return true }
        guard stat.state == "D" else { return false }
        return Self.vforkWaits.contains(procFS.waitChannel(pid, thread: thread) ?? "")
    }

    /// Where the kernel parks a vfork parent (`/proc/PID/wchan`), across kernel versions.
    private static let vforkWaits: Set<String> = ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]

    /// The children of `pid`'s threads (`threads` of them, 0 when not known); none once it is
    /// gone (its children went to the supervisor, listed last, or to a subreaper in the tree).
    /// Where the kernel has no `children` files, one scan of `/proc` answers the rest of the
    /// round: it begins after the round's looks, as the walk must.
    private func children(of pid: Int32, threads: Int, round: Int) -> [Int32] {
        let ids = threads == 1 ? [String(pid)] : procFS.threadIDs(pid)
        var found: [Int32] = []
        for thread in ids {
            guard let children = procFS.children(pid, thread: thread) else {
                guard procFS.stat(pid) != nil else { return found }
                return roundScan(round).children(of: pid).map(\.pid)
            }
            found += children
        }
        return found
    }

    /// The scan of `/proc` made for `round` of the walk, made now if there is none yet.
    private func roundScan(_ round: Int) -> ProcessTable {
        if let (scanned, table) = walkScan, scanned == round { return table }
        let table = ProcessTable.scan(procFS)
        walkScan = (round, table)
        return table
    }

    /// Reads the process `pid`, which the walk found below `parent`, and sends it SIGSTOP unless
    /// it is dead or gone, has another parent by now (its pid was reused), or (`byName`) is not
    /// this child's: another child's orphan, by its `SUPERVISE_NAME`.
    private func adopt(_ pid: Int32, parent: Int32, byName: Bool) -> (ProcessIdentity?, threads: Int) {
        guard let stat = procFS.stat(pid), !stat.isDead, stat.parent == parent else { return (nil, 0) }
        if byName, freezer.adoption?.soleChild != true, procFS.supervisedName(pid) != childName { return (nil, 0) }
        // The stat was just read: the pid names this process.
        _ = procFS.system.kill(pid, SIGSTOP)
        return (ProcessIdentity(pid: pid, startTicks: stat.startTicks), stat.threads)
    }
}
