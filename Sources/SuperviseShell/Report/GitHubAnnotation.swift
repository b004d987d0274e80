/// GitHub Actions workflow commands (`--annotations`): `::error title=T,file=F,line=N::MESSAGE`.
enum GitHubAnnotation {
    /// One `::error` line whatever the text, escaped as GitHub's toolkit (`@actions/core`) does
    /// and its runner undoes: in every value `%`, `\r` and `\n` become `%25`, `%0D` and `%0A`; in
    /// the properties also `:` (which would end them) and `,` (which ends one) become `%3A` and
    /// `%2C`. With a `file` (and its `line`) the annotation lands on that line of the file.
    static func error(title: String, file: String? = nil, line: Int? = nil, message: String) -> String {
        var properties = ["title=" + escaped(title, property: true)]
        if let file {
            properties.append("file=" + escaped(file, property: true))
            if let line { properties.append("line=\(line)") }
        }
        return "::error \(properties.joined(separator: ","))::\(escaped(message, property: false))\n"
    }

    private static func escaped(_ text: String, property: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case ":" where property: out += "%3A"
            case "," where property: out += "%2C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
