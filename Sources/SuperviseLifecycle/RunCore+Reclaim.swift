/// The `--suspended-memory` budget (docs/cli.md): while the suspended children hold more memory
/// together than it, the one suspended longest is reclaimed (``ReclaimPlan``).
extension RunCore {
    /// Every child of `children` that is suspended, as ``ReclaimPlan`` weighs it.
    public static func reclaimCandidates(_ children: [RunChild]) -> [ReclaimPlan.Candidate] {
        children.indices.compactMap { order in
            let child = children[order]
            guard child.status.state == .suspended, let since = child.suspendedSince else { return nil }
            return ReclaimPlan.Candidate(order: order, suspendedSince: since, priority: child.priority,
                                         bytes: child.frozenMemory)
        }
    }

    /// Reclaims the suspended children of `children` the budget has no room for, each with a
    /// note and a line saying why; nothing without a budget.
    func reclaimOverBudget(_ children: [RunChild]) -> [RunAction] {
        guard let budget = settings.suspendedMemory else { return [] }
        let candidates = Self.reclaimCandidates(children)
        let victims = ReclaimPlan.victims(candidates, budget: budget)
        guard !victims.isEmpty else { return [] }
        let total = candidates.reduce(UInt64(0)) { $0 &+ $1.bytes }
        return victims.map { place in
            .reclaim(child: place, reason: "reclaimed: suspended children held \(total / 1024) KiB, over the "
                + "suspended-memory budget of \(budget / 1024) KiB; this one \(children[place].frozenMemory / 1024) KiB")
        }
    }
}
