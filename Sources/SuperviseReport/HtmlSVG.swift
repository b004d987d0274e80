import SuperviseShell
/// Builds SVG markup. Every text and attribute value that is not a number goes through
/// ``XMLText`` (HTML parses `&`, `<`, `>` and quotes in inline SVG as XML does), so nothing a
/// child wrote can open an element or an attribute. Hover text is an SVG `<title>`: no script.
struct HtmlSVG {
    private(set) var markup = ""

    /// Appends markup made here (never text from a report).
    mutating func raw(_ text: String) { markup += text }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String,
                       extra: String = "", title: String? = nil) {
        element("rect", "x=\"\(c(x))\" y=\"\(c(y))\" width=\"\(c(max(width, 0)))\" height=\"\(c(height))\""
                + " fill=\"\(fill)\"" + extra, title: title)
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1,
                       extra: String = "", title: String? = nil) {
        element("line", "x1=\"\(c(x1))\" y1=\"\(c(y1))\" x2=\"\(c(x2))\" y2=\"\(c(y2))\" stroke=\"\(stroke)\""
                + " stroke-width=\"\(c(width))\"" + extra, title: title)
    }

    /// A path from `points` (`M` then `L`s), stroked or filled.
    mutating func path(_ points: [(Double, Double)], stroke: String? = nil, fill: String = "none", width: Double = 1,
                       title: String? = nil) {
        let d = points.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(c($0.element.0)) \(c($0.element.1))" }
            .joined(separator: " ")
        element("path", "d=\"\(d)\" fill=\"\(fill)\"" + (stroke.map { " stroke=\"\($0)\" stroke-width=\"\(c(width))\"" } ?? ""),
                title: title)
    }

    /// `text` at (x, y) (its baseline), escaped.
    mutating func text(_ text: String, x: Double, y: Double, size: Double = 12, fill: String = "#212121",
                       extra: String = "", title: String? = nil) {
        markup += "<text x=\"\(c(x))\" y=\"\(c(y))\" font-size=\"\(c(size))\" fill=\"\(fill)\"\(extra)>"
            + (title.map { "<title>\(XMLText.escapedText($0))</title>" } ?? "") + XMLText.escapedText(text) + "</text>\n"
    }

    /// `text` on a white backing (its width estimated from the characters), so it reads over
    /// brackets and grid lines; from `x` rightwards, or leftwards when `fromRight`.
    mutating func label(_ text: String, x: Double, y: Double, size: Double, fill: String, bold: Bool = false,
                        fromRight: Bool = false, title: String? = nil) {
        let width = Double(text.count) * size * (bold ? 0.62 : 0.56) + 4
        rect(x: fromRight ? x - width + 2 : x - 2, y: y - size, width: width, height: size + 3, fill: "#ffffff",
             extra: " fill-opacity=\"0.85\"")
        self.text(text, x: x, y: y, size: size, fill: fill,
                  extra: (bold ? " font-weight=\"bold\"" : "") + (fromRight ? " text-anchor=\"end\"" : ""), title: title)
    }

    /// `<g data-KEY="VALUE" …>` … `</g>`: the values escaped.
    mutating func group(_ attributes: [(String, String)], _ body: (inout HtmlSVG) -> Void) {
        markup += "<g" + attributes.map { " \($0.0)=\"\(XMLText.escapedAttribute($0.1))\"" }.joined() + ">\n"
        body(&self)
        markup += "</g>\n"
    }

    private mutating func element(_ name: String, _ attributes: String, title: String?) {
        guard let title else { markup += "<\(name) \(attributes)/>\n"; return }
        markup += "<\(name) \(attributes)><title>\(XMLText.escapedText(title))</title></\(name)>\n"
    }

    private func c(_ value: Double) -> String { HtmlFormat.coordinate(value) }
}
