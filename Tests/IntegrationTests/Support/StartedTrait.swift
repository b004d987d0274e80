import SuperviseTestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// Skips the test when the engine `what` could not be started, with why printed; `failure` is
    /// asked only when the test is about to run (it starts the engine the first time).
    static func started(_ what: String, _ failure: @escaping @Sendable () -> String?, in suite: String) -> Self {
        .enabled { SkipReason.check(failure(), skipping: what, in: suite) }
    }
}
