import SuperviseLifecycle
import SuperviseSystem

extension Supervisor {
    /// The human summary on stderr at the end of the run, when asked (``SupervisorOptions/summary``).
    func writeSummary(exitStatus: Int32) {
        guard options.summary else { return }
        let end = MonotonicClock.now()
        let steps = failedSteps.elements
        let summaries = children.map { child in
            let waits = steps.filter { $0.children.contains(child.name) }.map(\.message)
            let verdict = ChildVerdict(runs: child.runs, omitted: child.omittedRuns, failedWaits: waits, end: end)
            return RunSummaryText.Child(name: child.name, freezer: child.unit.kind.rawValue,
                                        summary: ChildSummary(runs: child.runs, omitted: child.omittedRuns, verdict: verdict),
                                        spawnFailure: child.spawnFailure?.message)
        }
        let text = RunSummaryText(children: summaries, exitStatus: exitStatus, rule: core.outcome.rule).text
        Descriptor.writeAll(Descriptor.standardError, text)
    }
}
