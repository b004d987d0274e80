import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

/// A `wait` on stdin that failed: where, why, and the children it was waiting for in vain.
struct FailedWait {
    var line: Int
    var text: String
    var reason: String
    /// Empty when the run can't tell which child the wait concerns.
    var children: [String]

    /// `stdin line 4 'wait suspended worker 1s': timed out: worker is background`.
    var message: String { "stdin line \(line) '\(ControlText.excerpt(text))': \(reason)" }
}

extension Supervisor {
    /// How many of a child's last protocol lines a JUnit failure quotes.
    static let junitProtocolLines = 20

    /// The run's results for CI, at its end: `--junit`, and the annotations under GitHub Actions.
    func writeCIResults() {
        guard options.junitPath != nil || options.githubAnnotations else { return }
        let end = MonotonicClock.now()
        var cases: [JUnitReport.TestCase] = []
        var annotations = ""
        for child in children {
            let waits = failedWaits.filter { $0.children.contains(child.name) }.map(\.message)
            let verdict = ChildVerdict(runs: child.runs, failedWaits: waits, end: end)
            cases.append(JUnitReport.TestCase(name: child.name, classname: "supervise", time: verdict.timeRun,
                                              failure: junitFailure(verdict.failures, of: child)))
            for failure in verdict.failures where failure.isAnnotated {
                annotations += GitHubAnnotation.error(title: "supervise: \(child.name)", message: failure.message(origin: origin))
            }
        }
        for wait in failedWaits where wait.children.isEmpty {
            let failure = ChildVerdict.Failure.wait(wait.message)
            cases.append(JUnitReport.TestCase(name: "stdin line \(wait.line)", classname: "supervise", time: .zero,
                                              failure: JUnitReport.Failure(message: wait.message, type: failure.type,
                                                                           body: wait.message + "\n")))
            annotations += GitHubAnnotation.error(title: "supervise: stdin line \(wait.line)", message: wait.message)
        }
        if let path = options.junitPath {
            let xml = JUnitReport(suiteName: "supervise", cases: cases).xml
            if case .failure(let error) = ReportFile.write(xml, to: path) {
                logger.error("cannot write the JUnit report to \(path): \(error.sentenceText); check the directory exists and is writable")
            }
        }
        if options.githubAnnotations, !annotations.isEmpty {
            Descriptor.writeAll(Descriptor.standardOutput, annotations)
        }
    }

    /// The first failure as the message, every failure and the child's last protocol lines as the body.
    private func junitFailure(_ failures: [ChildVerdict.Failure], of child: SupervisedChild) -> JUnitReport.Failure? {
        guard let first = failures.first else { return nil }
        var message = first.message(origin: origin)
        if failures.count > 1 { message += " (and \(failures.count - 1) more)" }
        var body = failures.map { $0.message(origin: origin) + "\n" }.joined()
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
