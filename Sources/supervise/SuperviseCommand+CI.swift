import ArgumentParser
import SuperviseConfig
import SuperviseSystem

/// `--annotations`: whether violations and failed waits are printed as GitHub `::error` lines.
enum AnnotationChoice: String, CaseIterable {
    /// When the environment has `GITHUB_ACTIONS=true`, as GitHub sets it in every job (sudo drops it).
    case auto
    case github
    case none
}

/// The CI results' options: `--annotations` and `--junit-suite`.
extension SuperviseCommand {
    func validateCIResults() throws(ValidationError) {
        if junitSuite != nil, junit == nil {
            throw ValidationError("--junit-suite names the JUnit results: give --junit FILE too")
        }
        if let junitSuite, junitSuite.isEmpty {
            throw ValidationError("--junit-suite is empty: give the suite a name")
        }
    }

    /// Whether to print the GitHub annotations (`--annotations`, auto by default).
    var githubAnnotations: Bool {
        switch annotations ?? .auto {
        case .auto: CurrentProcess.environment.contains("GITHUB_ACTIONS=true")
        case .github: true
        case .none: false
        }
    }

    /// `--junit-suite`, or the config file's name without `.toml`, or the one child's name.
    func junitSuiteName(specs: [ChildSpec]) -> String {
        if let junitSuite { return junitSuite }
        guard let config else { return specs.first?.name ?? "supervise" }
        var name = config.split(separator: "/").last.map(String.init) ?? config
        if name.hasSuffix(".toml"), name.count > 5 { name.removeLast(5) }
        return name
    }
}
