import Foundation

/// The replay convention of the seeded tests: a run takes its seed from an environment variable
/// (`SUPERVISE_FUZZ_SEED` for the fuzzers, `SUPERVISE_SEED` for the interleavings) or draws a fresh
/// one, and the caller prints `replay: NAME=SEED` with `replay()` — the fuzzers before the first
/// input, so even a crash leaves the seed in the log; the interleavings with every mismatch.
public struct Seed: Sendable {
    /// The seed to use.
    public let value: UInt64
    /// Whether it came from the environment (a replay) rather than being drawn fresh.
    public let isReplay: Bool
    /// The environment variable that replays it.
    public let variable: String

    /// The seed in `variable`, or a fresh one drawn from `fresh` when it is unset or not a number.
    public init(from variable: String, fresh: ClosedRange<UInt64> = 1...UInt64.max) {
        self.variable = variable
        if let text = ProcessInfo.processInfo.environment[variable], let given = UInt64(text) {
            value = given
            isReplay = true
        } else {
            value = UInt64.random(in: fresh)
            isReplay = false
        }
    }

    /// `NAME=SEED`: what to put before `swift test` to replay this seed.
    public func replay() -> String { Self.replay(variable, value) }

    /// `NAME=SEED` for any seed, such as one drawn from the first.
    public static func replay(_ variable: String, _ seed: UInt64) -> String { "\(variable)=\(seed)" }
}
