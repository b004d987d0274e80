/// Rules for child names: what commands, logs and cgroups call a child.
public enum ChildName {
    /// Letters, digits, `.`, `_` and `-`; not empty, and not `all` (which names every child).
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name != "all" && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The default name for a command: its basename, made valid.
    public static func from(command: String) -> String {
        let base = command.split(separator: "/").last.map(String.init) ?? command
        let cleaned = String(base.map { character -> Character in
            let text = String(character)
            return isValid(text) ? character : "_"
        })
        return isValid(cleaned) ? cleaned : "child"
    }
}
