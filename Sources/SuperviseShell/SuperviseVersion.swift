import SuperviseProtocol

/// The version of `supervise`, as `--version` and `ctl version` print it.
public enum SuperviseVersion {
    public static let number = "0.9.0"
    /// `supervise 0.9.0 (protocol 1)`.
    public static let line = "supervise \(number) (protocol \(protocolVersion))"
}
