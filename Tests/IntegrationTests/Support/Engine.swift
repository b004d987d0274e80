import Foundation
import Testing
import SuperviseTestSupport

/// The container engines the engine suites run supervise in: each test runs on every one that
/// starts here, and prints why any other was skipped.
enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case docker, podman

    var testDescription: String { rawValue }

    /// The engine's command line, started the first time it is asked for.
    func cli() throws -> EngineCLI {
        switch self {
        case .docker: try Dockerd.shared.get().cli
        case .podman: try PodmanStorage.shared.get().cli
        }
    }

    /// Why this engine can't run a container here, or nil: its programs, then starting it.
    var unavailableReason: String? {
        if let missing = self == .docker ? Dockerd.missingReason : PodmanStorage.missingReason { return missing }
        do { _ = try cli() } catch { return "\(rawValue) did not start: \(error)" }
        return nil
    }

    /// The engine's command line, or nil after printing why this test skips it.
    func started(in suite: String) -> EngineCLI? {
        SkipReason.check(unavailableReason, skipping: rawValue, in: suite) ? try? cli() : nil
    }
}
