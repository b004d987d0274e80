import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

/// A stdin command that failed the run (exit status 123): a `wait` that failed, or a mistake that
/// ended a scripted run. Where, why, and the children a wait was waiting for in vain.
struct FailedStep {
    /// A failed `wait` (JUnit type `wait`), or a command that could not be run as written (`command`).
    var kind: ScriptStepKind
    var line: Int
    var text: String
    var reason: String
    /// Empty when the step concerns no child in particular.
    var children: [String]

    /// `stdin line 4 'wait suspended worker 1s': timed out: worker is background`.
    var message: String { "stdin line \(line) '\(ControlText.excerpt(text))': \(reason)" }
}

extension Supervisor {
    /// How many failed stdin steps are kept at each end of the run (a script of failing waits
    /// can be endless with `--keep-going` or a terminal).
    static let failedStepLimit = 1_000

    /// How many of a child's last protocol lines a JUnit failure quotes.
    static let junitProtocolLines = 20
    /// How many of a child's last lifecycle entries (states, freezes, violations, notes) its
    /// JUnit `system-out` lists.
    static let junitLifecycleEntries = 50

    /// The run's results for CI, at its end: `--junit`, and the GitHub annotations (`--annotations`).
    /// Returns false when the JUnit file could not be written.
    func writeCIResults() -> Bool {
        guard options.junit != nil || options.githubAnnotations else { return true }
        let end = MonotonicClock.now()
        let suite = options.junitSuite
        var cases: [JUnitReport.TestCase] = []
        var annotations = ""
        let steps = failedSteps.elements
        for child in children {
            let waits = steps.filter { $0.children.contains(child.name) }.map(\.message)
            let verdict = ChildVerdict(runs: child.runs, omitted: child.omittedRuns, failedWaits: waits, end: end)
            cases.append(JUnitReport.TestCase(name: child.name, classname: suite, time: verdict.timeRun,
                                              failure: junitFailure(verdict.failures, of: child),
                                              output: junitOutput(child, verdict: verdict)))
            let place = child.spec.configLocation
            for failure in verdict.failures where failure.isAnnotated {
                annotations += GitHubAnnotation.error(title: "supervise: \(child.name)", file: place.map(annotatedPath),
                                                      line: place?.line, message: failure.message(origin: origin))
            }
        }
        for step in steps where step.children.isEmpty {
            cases.append(JUnitReport.TestCase(name: "stdin line \(step.line)", classname: suite, time: .zero,
                                              failure: JUnitReport.Failure(message: step.message, type: step.kind.rawValue,
                                                                           body: step.message + "\n")))
            annotations += GitHubAnnotation.error(title: "supervise: stdin line \(step.line)", message: step.message)
        }
        if failedSteps.omitted > 0 {
            let message = "\(failedSteps.omitted) more stdin steps failed, not recorded (between the first and the last "
                + "\(Self.failedStepLimit))"
            cases.append(JUnitReport.TestCase(name: "stdin steps not recorded", classname: "supervise", time: .zero,
                                              failure: JUnitReport.Failure(message: message, type: "wait", body: message + "\n")))
        }
        if options.githubAnnotations, !annotations.isEmpty {
            Descriptor.writeAll(Descriptor.standardOutput, annotations)
        }
        guard let junit = options.junit else { return true }
        return write(JUnitReport(suiteName: suite, cases: cases).xml, to: junit, what: "the JUnit results")
    }

    /// The config file's path for an annotation's `file=`: absolute, which the runner makes
    /// relative to the repository (and translates out of a job's container) whatever the step's
    /// working directory.
    private func annotatedPath(_ place: ConfigLocation) -> String {
        guard !place.path.hasPrefix("/"), let directory = CurrentProcess.workingDirectory else { return place.path }
        return (directory.hasSuffix("/") ? directory : directory + "/") + place.path
    }

    /// What happened to a child, passed or failed: its line of the end-of-run summary, then its
    /// last lifecycle entries.
    private func junitOutput(_ child: SupervisedChild, verdict: ChildVerdict) -> String {
        let summary = RunSummaryText.Child(name: child.name, freezer: child.unit.kind.rawValue,
                                           summary: ChildSummary(runs: child.runs, verdict: verdict),
                                           spawnFailure: child.spawnFailure?.message)
        let entries = child.timeline.entries.filter { !$0.kind.isMessage }
        let last = entries.suffix(Self.junitLifecycleEntries)
        var out = RunSummaryText.line(summary) + "\n\nlast \(last.count) of "
            + "\(entries.count + child.timeline.lifecycleEntriesDropped) lifecycle entries:\n"
        for entry in last {
            out += "  \(Int(entry.milliseconds)) ms \(entry.kind.rawValue): \(entry.text)\n"
        }
        return out
    }

    /// The first failure as the message, every failure and the child's last protocol lines as the body.
    private func junitFailure(_ failures: [ChildVerdict.Failure], of child: SupervisedChild) -> JUnitReport.Failure? {
        guard let first = failures.first else { return nil }
        var messages = failures.map { $0.message(origin: origin) }
        // A run that could not be started is its last (it is never restarted): its exit status
        // (126 or 127) says less than why.
        if let spawnFailure = child.spawnFailure,
           let last = failures.lastIndex(where: { if case .exit = $0 { true } else { false } }) {
            messages[last] = "could not be started: " + spawnFailure.message
        }
        var message = messages[0]
        if failures.count > 1 { message += " (and \(failures.count - 1) more)" }
        var body = messages.map { $0 + "\n" }.joined()
        let lines = child.timeline.entries.filter(\.kind.isMessage)
        let last = lines.suffix(Self.junitProtocolLines)
        body += "\nlast \(last.count) of \(lines.count) protocol lines"
            + (child.timeline.messagesDropped > 0 ? " kept (\(child.timeline.messagesDropped) more not kept)" : "") + ":\n"
        for entry in last {
            body += "  \(Int(entry.milliseconds)) ms \(entry.kind.rawValue): \(entry.text)\n"
        }
        return JUnitReport.Failure(message: message, type: first.type, body: body)
    }
}
