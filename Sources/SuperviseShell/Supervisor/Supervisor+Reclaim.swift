import SuperviseLifecycle

extension Supervisor {
    /// Under `--suspended-memory`: the children, with what the suspended ones hold, weighed by
    /// the run core, which reclaims those over the budget (``RunCore``, ``ReclaimPlan``). Runs
    /// between inputs, at the top of each turn of the loop and before commands run, so a freeze
    /// just verified counts before a command can thaw that child.
    func reclaimOverBudget() {
        perform(core.handle(.weighSuspendedMemory(runChildren)))
    }

    /// Reclaims the suspended `child`, saying why in its timeline, the log and `status`.
    func reclaim(_ child: SupervisedChild, reason: String, at now: Instant) {
        child.reclaimReason = reason
        child.record(.note, reason, at: now)
        child.logger.notice("\(reason)")
        child.handle(.reclaim, at: now)
    }
}
