import Glibc
import SuperviseTestSupport
import Testing

/// One fuzzing run of one parser: its seed and how many inputs it tries.
///
/// `SUPERVISE_FUZZ_SEED=N` replays a run (the seed is printed before any input is tried, so a
/// crash still leaves it in the log); `SUPERVISE_FUZZ_ITERATIONS=N` sets the inputs per parser
/// (the long mode). Without them, each run picks a fresh seed and a count that keeps the whole
/// suite to a few seconds in a debug build.
/// Every fuzz suite is `.computing`: its tests run one at a time on a thread of their own.
struct FuzzRun {
    let seed: UInt64
    let iterations: Int
    var random: SeededGenerator

    /// A run for `parser`; `defaultIterations` is its share of the bounded CI budget.
    init(_ parser: String, defaultIterations: Int) {
        seed = Self.sharedSeed.value
        iterations = Self.iterations ?? defaultIterations
        // Each parser gets its own stream from the one printed seed.
        random = SeededGenerator(seed: seed ^ Self.fnv1a(parser))
        print("fuzz \(parser): seed \(seed), \(iterations) inputs (replay: \(Self.sharedSeed.replay()))")
    }

    /// Shared by every parser's run, so one printed seed replays the whole suite.
    private static let sharedSeed = Seed(from: "SUPERVISE_FUZZ_SEED", fresh: 0...UInt64(UInt32.max))
    private static let iterations: Int? = getenv("SUPERVISE_FUZZ_ITERATIONS").flatMap { Int(String(cString: $0)) }

    /// Each fuzz test's limit: 5 minutes for the default share (a few seconds in a debug build), a day
    /// for the long mode (50,000 CLI inputs take about 20 minutes).
    static var timeLimit: TimeLimitTrait.Duration { iterations == nil ? .minutes(5) : .minutes(24 * 60) }

    /// A stable hash (Swift's `Hasher` is seeded per process).
    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
