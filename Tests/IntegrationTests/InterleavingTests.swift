import Foundation
import SuperviseTestSupport
import Testing

/// Seeded random interleavings of commands, signals, sleeps on the deadlines, child requests and
/// deaths, with the truth monitor checking after every step that what `supervise` says is what its
/// processes do, and at the end that nothing is left and the exit status and report are right.
/// See docs/testing.md for replaying a seed and for the soak mode.
@Suite(.blockingThreads, .serialized, .timeLimit(InterleavingPlan.timeLimit)) struct InterleavingTests {
    @Test(arguments: Backend.usable(in: "InterleavingTests"))
    func randomInterleavingsTellTheTruth(backend: Backend) throws {
        let plan = InterleavingPlan.current
        guard plan.covers(backend) else { return print("interleavings on \(backend.rawValue): not run, SUPERVISE_FREEZERS leaves it out") }
        let start = Date()
        var sequences = 0, steps = 0, mismatches = 0, cleared: [String] = []
        while plan.wantsMore(sequences: sequences, steps: steps) {
            let seed = plan.seed(sequences)
            let result = try InterleavingRun(seed: seed, backend: backend, steps: plan.stepsPerSequence,
                                         replay: plan.replay(seed)).run()
            sequences += 1
            steps += result.stepsDone
            mismatches += result.mismatches.count
            cleared += result.cleared
            for mismatch in result.mismatches { Issue.record(Comment(rawValue: mismatch)) }
            if plan.soakSteps != nil { print(Self.figures(seed, backend, result)) }
        }
        print("interleavings on \(backend.rawValue): \(sequences) sequences from seed \(plan.firstSeed), \(steps) steps, "
              + "\(mismatches) mismatches, " + String(format: "%.1f s", Date().timeIntervalSince(start))
              + "; \(cleared.count) disagreements gone at the second look" + cleared.prefix(5).map { "\n  " + $0 }.joined())
    }

    static func figures(_ seed: UInt64, _ backend: Backend, _ result: InterleavingRun.Result) -> String {
        let descriptors = result.descriptors.map { "fds \($0.start) -> \($0.end)" } ?? "fds n/a"
        let resident = result.residentKiB.map { "RSS \($0.start) -> \($0.end) KiB" } ?? "RSS n/a"
        return "soak \(backend.rawValue) seed \(seed): \(result.stepsDone) steps (\(result.ending), exit \(result.exitStatus ?? -1)), "
            + "\(result.mismatches.count) mismatches, " + String(format: "%.1f s, ", result.elapsed) + "\(descriptors), \(resident)"
    }
}
