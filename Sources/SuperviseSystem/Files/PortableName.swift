/// Names safe as one path component anywhere: what child names may be, and what a
/// cgroup directory is named after.
public enum PortableName {
    /// The characters a portable name may have besides ASCII letters and digits.
    public static let punctuation = "._-"

    /// `true` when `text` is one or more ASCII letters, digits, `.`, `_` and `-`.
    public static func isPortable(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.allSatisfy { character in
            character.isASCII && (character.isLetter || character.isNumber || punctuation.contains(character))
        }
    }

    /// `name` with every character other than ASCII letters, digits, `.`, `_` and `-` made `_`,
    /// at most 100 characters (also a cgroup directory name); `child` when empty.
    public static func sanitized(_ name: String) -> String {
        let kept = name.prefix(100).map { isPortable(String($0)) ? $0 : "_" }
        return kept.isEmpty ? "child" : String(kept)
    }
}
