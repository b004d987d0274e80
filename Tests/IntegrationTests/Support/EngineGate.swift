import Foundation
import Testing

/// The gate of the engine suites (Docker, runc, Podman, systemd-nspawn, the `.deb`): they take
/// minutes on a first run, so a developer's quick `SKIP_ENGINE_TESTS=1 swift test` skips them
/// with the reason printed; `.ci/run` never sets it, so CI always runs them.
enum EngineGate {
    /// Why the engine suites are skipped on this run, or nil.
    static let skipReason: String? = ProcessInfo.processInfo.environment["SKIP_ENGINE_TESTS"] == "1"
        ? "SKIP_ENGINE_TESTS=1 is set (CI runs these)" : nil

    /// The first reason of `reasons` that is not nil, after the gate's own: what a suite passes to
    /// `.skip(_:because:in:)` when it also needs an engine the machine may lack.
    static func skipReason(_ reasons: String?...) -> String? {
        skipReason ?? reasons.lazy.compactMap { $0 }.first
    }
}

/// The engine suites, one at a time: each starts daemons, boots machines or builds images that
/// take both cores for minutes, so two at once would push each other (and the timing bounds of
/// the suites beside them) past their limits. Each is declared in an extension of this one.
@Suite(.serialized) enum EngineSuites {}
