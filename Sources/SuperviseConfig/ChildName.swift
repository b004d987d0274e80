import SuperviseSystem

/// Rules for child names: what commands, logs and cgroups call a child.
public enum ChildName {
    /// Letters, digits, `.`, `_` and `-` (``PortableName``); not `all`, which names every child.
    public static func isValid(_ name: String) -> Bool {
        name != "all" && PortableName.isPortable(name)
    }

    /// The default name for a command: its basename, made valid.
    public static func from(command: String) -> String {
        let name = PortableName.sanitized(command.split(separator: "/").last.map(String.init) ?? command)
        return name == "all" ? "child" : name
    }
}
