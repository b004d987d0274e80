import Testing

extension Trait where Self == ConditionTrait {
    /// Skips the test where `reason` is not nil — a backend or program the machine lacks — with the
    /// reason as the skip's comment, and prints `skipped: SUITE: WHAT: REASON` (`SkipReason`) when the
    /// test would have run. `nil` runs it.
    ///
    ///     @Test(.skip("PostgreSQL", because: PostgresCluster.missingReason, in: "RealProgramTests"))
    public static func skip(_ what: String, because reason: String?, in suite: String) -> Self {
        .enabled(reason.map { Comment(rawValue: $0) }) {
            SkipReason.check(reason, skipping: what, in: suite)
        }
    }
}
