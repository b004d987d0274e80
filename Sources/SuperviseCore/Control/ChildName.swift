/// Rules for child names: what commands, logs and cgroups call a child.
public enum ChildName {
    /// The characters a name may have besides ASCII letters and digits.
    static let punctuation = "._-"

    /// Letters, digits, `.`, `_` and `-`; not empty, and not `all` (which names every child).
    public static func isValid(_ name: String) -> Bool {
        name != "all" && ControlText.isToken(name, extra: punctuation)
    }

    /// The default name for a command: its basename, made valid.
    public static func from(command: String) -> String {
        let name = sanitized(command.split(separator: "/").last.map(String.init) ?? command)
        return name == "all" ? "child" : name
    }

    /// `name` with every character other than ASCII letters, digits, `.`, `_` and `-` made `_`,
    /// at most 100 characters (also a cgroup directory name); `child` when empty.
    static func sanitized(_ name: String) -> String {
        let kept = name.prefix(100).map { ControlText.isToken(String($0), extra: punctuation) ? $0 : "_" }
        return kept.isEmpty ? "child" : String(kept)
    }
}
