/// GitHub Actions workflow commands, for a run under `GITHUB_ACTIONS=true`.
enum GitHubAnnotation {
    /// `::error title=TITLE::MESSAGE`, one line whatever the text: `%`, `\r` and `\n` become
    /// `%25`, `%0D` and `%0A` as GitHub requires; in the title `,` (which ends a property)
    /// becomes `%2C` too. A `:` stays: the runner ends the properties at `::`, and a child name
    /// has no colon (``ChildName``).
    static func error(title: String, message: String) -> String {
        "::error title=\(escaped(title, property: true))::\(escaped(message, property: false))\n"
    }

    private static func escaped(_ text: String, property: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case "," where property: out += "%2C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
