extension HtmlLane {
    /// Memory pressure's marks, on the row of the protocol ticks: a diamond per `memory-warning`
    /// the child was sent, and one where memory pressure reclaimed it (the note saying why, with
    /// the figures, is its hover).
    func drawMemoryMarks(top: Double, into svg: inout HtmlSVG) {
        for entry in child.timeline {
            let colour: String
            if entry.kind == "event", entry.text.hasPrefix("memory-warning ") {
                colour = HtmlPalette.memoryWarning
            } else if entry.kind == "note", entry.text.hasPrefix(Self.pressureReclaimNote) {
                colour = HtmlPalette.pressureReclaim
            } else {
                continue
            }
            svg.path(Self.diamond(x: x(entry.milliseconds), y: top + Self.tickTop + Self.tickHeight / 2), fill: colour,
                     title: entry.line)
        }
    }

    /// How the note of a reclaim for memory pressure begins.
    static let pressureReclaimNote = "reclaimed: memory pressure "

    /// A diamond 10 px wide centred on (x, y).
    static func diamond(x: Double, y: Double) -> [(Double, Double)] {
        [(x - 5, y), (x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)]
    }
}
