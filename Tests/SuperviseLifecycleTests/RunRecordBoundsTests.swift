import SuperviseProtocol
import Testing
@testable import SuperviseLifecycle

/// A child's record of its runs stays bounded however often it is restarted: the first and the
/// last ``ChildCore/runLimit`` runs before the current one are kept, and the runs between are
/// summed (``OmittedRuns``), so that the verdict, the summary and the exit status still count
/// them; task records are capped per child over all its runs.
@Suite(.timeLimit(.minutes(5))) struct RunRecordBoundsTests {
    private var core = ChildCore(settings: LifecycleSettings(),
                                 restart: RestartRules(policy: .always, delay: .milliseconds(1), delayMax: .milliseconds(1)),
                                 freezerNotifies: false)
    private var now = Instant.zero

    /// One run of a second with one task, exiting with `status`; returns the actions of its end.
    @discardableResult
    private mutating func run(exiting status: Int32, tasks: Int = 1) -> [LifecycleAction] {
        _ = core.handle(.launched, at: now)
        for index in 0..<tasks {
            _ = core.handle(.request(.begin(id: TaskID("t\(index)")!, name: nil)), at: now)
            _ = core.handle(.request(.end(id: TaskID("t\(index)")!)), at: now)
        }
        now = now + .seconds(1)
        _ = core.handle(.exited(.exited(status), treeEmpty: true), at: now)
        let over = core.handle(.runOver, at: now).actions
        if let deadline = core.status.nextDeadline {
            now = deadline
            _ = core.handle(.tick, at: now)
        }
        return over
    }

    @Test mutating func runsAreKeptAtBothEndsAndTheOnesBetweenSummed() {
        let total = 2 * ChildCore.runLimit + 7
        var last: [LifecycleAction] = []
        for number in 1...total { last = run(exiting: Int32(number)) }
        #expect(last == [.restartScheduled(after: .milliseconds(1), run: total + 1)], "runs are numbered over all")
        // The current run is the one just started; the record keeps runs 1–100 and 108–207 before it.
        let exits = core.runs.compactMap { $0.exit?.termination }
        #expect(exits == (Array(1...ChildCore.runLimit) + Array((total - ChildCore.runLimit + 1)...total)).map { .exited(Int32($0)) })
        #expect(core.runs.count == 2 * ChildCore.runLimit + 1 && core.runCount == total + 1)
        let omitted = core.omittedRuns
        #expect(omitted.count == 7 && omitted.failedExits == 7 && omitted.tasksAsked == 7 && omitted.timeRun == .seconds(7))
        #expect(!omitted.killedForViolation)

        let verdict = ChildVerdict(runs: core.runs, omitted: omitted, failedWaits: [], end: now)
        #expect(verdict.failures.count == 2 * ChildCore.runLimit + 1, "one per failed run kept, one for those not kept")
        #expect(verdict.failures.last == .notRecorded(runs: 7, violations: 0, failedExits: 7))
        #expect(verdict.timeRun == .seconds(Int64(total)))
        let summary = ChildSummary(runs: core.runs, omitted: omitted, verdict: verdict)
        #expect(summary.runs == total + 1 && summary.tasksAsked == total)
    }

    @Test mutating func runsNotKeptThatPassedFailNothing() {
        for _ in 0..<(2 * ChildCore.runLimit + 2) { run(exiting: 0) }
        #expect(core.omittedRuns.count == 2 && core.omittedRuns.failedExits == 0)
        #expect(ChildVerdict(runs: core.runs, omitted: core.omittedRuns, failedWaits: [], end: now).passed)
    }

    /// 100,000 task records per child, over all its runs: a run records what the runs kept
    /// before it left, and counts the rest.
    @Test mutating func taskRecordsAreCappedPerChildOverItsRuns() {
        run(exiting: 1, tasks: 60_000)
        run(exiting: 1, tasks: 60_000)
        let runs = core.runs
        #expect(runs.map(\.taskHistory.count) == [60_000, 40_000, 0])
        #expect(runs.map(\.tasksNotRecorded) == [0, 20_000, 0])
        #expect(runs[2].taskRecordLimit == 0)
    }

    @Test func aHeadTailBufferSaysWhatItLetGo() {
        var buffer = HeadTailBuffer<Int>(headLimit: 2, tailLimit: 2)
        #expect((1...4).map { buffer.append($0) } == [nil, nil, nil, nil])
        #expect(buffer.append(5) == 3 && buffer.append(6) == 4 && buffer.keptCount == 4)
        var headOnly = HeadTailBuffer<Int>(headLimit: 1, tailLimit: 0)
        #expect(headOnly.append(1) == nil && headOnly.append(2) == 2)
    }
}
