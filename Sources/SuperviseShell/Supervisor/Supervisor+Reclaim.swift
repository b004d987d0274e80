import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// Under `--suspended-memory`: while the suspended children hold more memory together than
    /// the budget, reclaims them, the one suspended longest first (``ReclaimPlan``). Runs between
    /// inputs, at the top of each turn of the loop and before commands run, so a freeze just
    /// verified counts before a command can thaw that child.
    func reclaimOverBudget() {
        guard let budget = options.suspendedMemory else { return }
        let candidates = reclaimCandidates()
        let victims = ReclaimPlan.victims(candidates, budget: budget)
        guard !victims.isEmpty else { return }
        let total = candidates.reduce(UInt64(0)) { $0 + $1.bytes }
        for order in victims {
            let child = children[order]
            reclaim(child, reason: "reclaimed: suspended children held \(total / 1024) KiB, over the suspended-memory budget "
                + "of \(budget / 1024) KiB; this one \(child.frozenMemory / 1024) KiB", at: MonotonicClock.now())
        }
    }

    /// Reclaims the suspended `child`, saying why in its timeline, the log and `status`.
    func reclaim(_ child: SupervisedChild, reason: String, at now: Instant) {
        child.reclaimReason = reason
        child.record(.note, reason, at: now)
        child.logger.notice("\(reason)")
        child.handle(.reclaim, at: now)
    }

    /// The suspended children, as a reclaim chooses among them.
    func reclaimCandidates() -> [ReclaimPlan.Candidate] {
        var candidates: [ReclaimPlan.Candidate] = []
        for (order, child) in children.enumerated() where child.state == .suspended {
            guard let since = child.lifecycle.stateEnteredAt else { continue }
            candidates.append(ReclaimPlan.Candidate(order: order, suspendedSince: since, priority: child.spec.priority,
                                                    bytes: child.frozenMemory))
        }
        return candidates
    }
}
