import Foundation
import SuperviseTestSupport
import Testing

/// How many interleavings to run, from the environment:
/// - default: 2 sequences of 10 steps per freezer, from a fresh random seed;
/// - `SUPERVISE_SEED=N`: replays the one sequence with seed N (of up to 300 steps with `SUPERVISE_SOAK` set);
/// - `SUPERVISE_SOAK=STEPS`: sequences of up to 300 steps until STEPS steps per freezer, with figures printed;
/// - `SUPERVISE_FREEZERS=cgroup1,sigstop`: only these freezers (to soak several in parallel processes).
struct InterleavingPlan {
    let firstSeed: UInt64
    let replay: Bool
    /// Total steps per freezer for a soak; nil for the short default run.
    let soakSteps: Int?
    /// The freezers asked for; nil for every usable one.
    let freezers: Set<String>?

    static var current: InterleavingPlan {
        let environment = ProcessInfo.processInfo.environment
        let seed = Seed(from: "SUPERVISE_SEED")
        return InterleavingPlan(firstSeed: seed.value, replay: seed.isReplay,
                                soakSteps: environment["SUPERVISE_SOAK"].flatMap { Int($0) },
                                freezers: environment["SUPERVISE_FREEZERS"].map { Set($0.split(separator: ",").map(String.init)) })
    }

    /// Whether this run is to cover `backend`.
    func covers(_ backend: Backend) -> Bool {
        freezers?.contains(backend.rawValue) ?? true
    }

    var stepsPerSequence: Int { soakSteps == nil ? 10 : 300 }

    /// The limit of one freezer's test: 8 minutes for the default 2 × 10 steps (well under one), a day
    /// for a soak or a replayed soak sequence (3,400 steps took about half an hour).
    static var timeLimit: TimeLimitTrait.Duration { current.soakSteps == nil ? .minutes(8) : .minutes(24 * 60) }

    /// The environment that replays the sequence with `seed` (the same commands, at most as many steps).
    func replay(_ seed: UInt64) -> String {
        (soakSteps == nil ? "" : "SUPERVISE_SOAK=1 ") + Seed.replay("SUPERVISE_SEED", seed)
    }

    /// The seed of sequence `index`: the first seed, then numbers drawn from it.
    func seed(_ index: Int) -> UInt64 {
        var source = SeededGenerator(seed: firstSeed), seed = firstSeed
        for _ in 0..<index { seed = source.next() }
        return seed
    }

    /// Whether another sequence should run after `sequences` of them and `steps` steps.
    func wantsMore(sequences: Int, steps: Int) -> Bool {
        if replay { return sequences < 1 }
        if let soakSteps { return steps < soakSteps && sequences < soakSteps }
        return sequences < 2
    }
}
