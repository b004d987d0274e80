import Glibc

/// One fuzzing run of one parser: its seed and how many inputs it tries.
///
/// `SUPERVISE_FUZZ_SEED=N` replays a run (the seed is printed before any input is tried, so a
/// crash still leaves it in the log); `SUPERVISE_FUZZ_ITERATIONS=N` sets the inputs per parser
/// (the long mode). Without them, each run picks a fresh seed and a count that keeps the whole
/// suite to a few seconds in a debug build.
struct FuzzRun {
    let seed: UInt64
    let iterations: Int
    var random: SeededGenerator

    /// A run for `parser`; `defaultIterations` is its share of the bounded CI budget.
    init(_ parser: String, defaultIterations: Int) {
        let environment = Self.environment
        seed = environment.seed
        iterations = environment.iterations ?? defaultIterations
        // Each parser gets its own stream from the one printed seed.
        random = SeededGenerator(seed: seed ^ Self.fnv1a(parser))
        print("fuzz \(parser): seed \(seed), \(iterations) inputs (replay: SUPERVISE_FUZZ_SEED=\(seed))")
    }

    /// Shared by every parser's run, so one printed seed replays the whole suite.
    private static let environment: (seed: UInt64, iterations: Int?) = {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        let seed = variable("SUPERVISE_FUZZ_SEED").flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64(UInt32.max))
        return (seed, variable("SUPERVISE_FUZZ_ITERATIONS").flatMap { Int($0) })
    }()

    /// A stable hash (Swift's `Hasher` is seeded per process).
    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
