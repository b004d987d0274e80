/// Numbers as the picture writes them, without Foundation.
enum HtmlFormat {
    /// `0.4 ms`, `23.9 ms`, `1.25 s`, `61.3 s`: a time or a length of time in milliseconds.
    static func duration(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite else { return "?" }
        if abs(milliseconds) < 1000 { return decimal(milliseconds, places: 1) + " ms" }
        return decimal(milliseconds / 1000, places: abs(milliseconds) < 10_000 ? 2 : 1) + " s"
    }

    /// An SVG coordinate: one decimal at most.
    static func coordinate(_ value: Double) -> String { decimal(value, places: 1) }

    /// `value` rounded to `places` decimals, trailing zeros dropped: `12.5`, `3`, `-0.25`.
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9e15 else { return String(value) }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        let sign = whole < 0 ? "-" : ""
        var text = sign + String(whole.magnitude / UInt64(unit))
        var fraction = String(whole.magnitude % UInt64(unit))
        if places > 0, fraction != "0" {
            fraction = String(repeating: "0", count: places - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }

    /// `12,345`: a count with thousands separated.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
