import SuperviseLifecycle
import SuperviseShell

/// The picture of a run: one self-contained HTML page (no script, no network: its
/// Content-Security-Policy allows neither) holding one SVG timeline drawn from the JSON report,
/// as `--html FILE` and `supervise report FILE --html OUT` write it (docs/report.md).
///
/// Everything is drawn in the SVG at fixed coordinates: the header facts, the notices of what
/// the report left out, the legend, the time axis, then a lane per child (``HtmlLane``).
public enum HtmlReport {
    static let width = 1200.0
    /// Where the time axis starts and ends.
    static let plotLeft = 180.0, plotRight = 1180.0
    static let lineHeight = 17.0

    /// The page for `report`, a report's JSON; throws when it is not one.
    public static func page(for report: JSONValue) throws(HtmlReportError) -> String {
        let run = try HtmlRun(report: report)
        // Finite whatever the report says (1.7e308 * 1.02 is infinity), so every length drawn
        // and every tick counted from it is too.
        let end = max(min(run.end * 1.02, .greatestFiniteMagnitude), 1)
        let x = { (milliseconds: Double) in plotLeft + max(0, min(milliseconds, end)) / end * (plotRight - plotLeft) }
        var svg = HtmlSVG()
        var y = drawHeader(run, into: &svg)
        y = drawLegend(top: y + 6, into: &svg)
        let axisTop = y + 8
        y = axisTop + 22
        let lanes = run.children.map { HtmlLane(child: $0, end: end, x: x, left: plotLeft, right: plotRight) }
        var laneTops: [Double] = []
        for lane in lanes {
            laneTops.append(y)
            y += HtmlLane.height(taskRows: (lane.taskRows.max() ?? -1) + 1)
        }
        for (lane, top) in zip(lanes, laneTops) { lane.drawBackground(top: top, into: &svg) }
        drawAxis(end: end, top: axisTop, bottom: y, x: x, into: &svg)
        for (lane, top) in zip(lanes, laneTops) { lane.draw(top: top, into: &svg) }
        if run.children.isEmpty {
            svg.text("No child was launched: the run ended (exit status \(run.exitStatus.map(String.init) ?? "?"))"
                     + " before starting any; the supervisor's log says why.", x: plotLeft, y: y + 24, size: 14)
            y += 40
        }
        let height = y + 10
        let names = run.children.map(\.name).joined(separator: ", ")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <title>supervise run: \(XMLText.escapedText(names.isEmpty ? "no children" : names))</title>
            <style>body { margin: 0; background: #ffffff; } svg text { font-family: sans-serif; }</style>
            </head>
            <body>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))">
            <defs><pattern id="unrecorded" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="3" height="6" fill="\(HtmlPalette.unrecorded)"/></pattern></defs>
            <rect width="\(Int(width))" height="\(Int(height))" fill="#ffffff"/>
            \(svg.markup)</svg>
            </body>
            </html>

            """
    }

    // MARK: Header

    /// The run's facts, a line per child, and what the report left out; returns the y below.
    private static func drawHeader(_ run: HtmlRun, into svg: inout HtmlSVG) -> Double {
        var y = 24.0
        let status = run.exitStatus.map { "exit status \($0)" } ?? "exit status unknown"
        let count = run.children.count
        svg.text("supervise run · \(status) · \(count) child\(count == 1 ? "" : "ren") · freezer asked: "
                 + (run.freezerAsked ?? "?"), x: 8, y: y, size: 16, extra: " font-weight=\"bold\"")
        y += 6
        for child in run.children {
            y += lineHeight
            let command = HtmlLane.clipped(child.command.joined(separator: " "), to: 90)
            var facts = "\(child.name): \(command) · \(child.freezer)"
            if let window = child.windowMS, let limit = child.limitMS {
                facts += " · window \(HtmlFormat.duration(window)), limit \(HtmlFormat.duration(limit))"
                if let warning = child.expiryWarningMS { facts += ", expiry warning \(HtmlFormat.duration(warning))" }
            }
            if let last = child.exits.last ?? nil { facts += " · \(last.description)" }
            svg.text(facts, x: 8, y: y, size: 12, title: child.command.joined(separator: " "))
        }
        for notice in notices(run) {
            y += lineHeight
            svg.text("⚠ " + notice, x: 8, y: y, size: 12, fill: "#b71c1c", extra: " font-weight=\"bold\"")
        }
        return y + 6
    }

    /// What the report left out, a line each: the picture can't show it.
    static func notices(_ run: HtmlRun) -> [String] {
        run.children.flatMap { child -> [String] in
            var lines: [String] = []
            if child.lifecycleEntriesDropped > 0 {
                lines.append("\(child.name): \(HtmlFormat.count(child.lifecycleEntriesDropped)) state, violation, freeze and note"
                             + " entries not recorded (the report's cap): hatched in its lane")
            }
            if child.messagesDropped > 0 {
                lines.append("\(child.name): \(HtmlFormat.count(child.messagesDropped)) protocol messages not recorded"
                             + " after the first \(HtmlFormat.count(Timeline.messageLimit))")
            }
            if child.tasksNotRecorded > 0 {
                lines.append("\(child.name): \(HtmlFormat.count(child.tasksNotRecorded)) task records not recorded")
            }
            if child.violationsNotRecorded > 0 {
                lines.append("\(child.name): \(HtmlFormat.count(child.violationsNotRecorded)) violations not recorded")
            }
            if child.runsNotRecorded > 0 {
                lines.append("\(child.name): \(HtmlFormat.count(child.runsNotRecorded)) runs not recorded"
                             + " between the first and the last \(ChildCore.runLimit)")
            }
            return lines
        }
    }

    // MARK: Legend

    /// A swatch per colour, in rows as wide as the page.
    private static func drawLegend(top: Double, into svg: inout HtmlSVG) -> Double {
        var x = 8.0
        var y = top + 4
        func swatch(_ label: String, _ draw: (inout HtmlSVG, Double, Double) -> Void) {
            let advance = 24 + Double(label.count) * 5.8
            if x + advance > width - 8 { x = 8; y += 20 }
            draw(&svg, x, y)
            svg.text(label, x: x + 18, y: y + 10, size: 11)
            x += advance
        }
        for state in HtmlPalette.states {
            swatch(state) { svg, x, y in svg.rect(x: x, y: y, width: 14, height: 12, fill: HtmlPalette.state(state) ?? "none") }
        }
        swatch("window") { svg, x, y in svg.path([(x, y + 8), (x, y + 2), (x + 14, y + 2), (x + 14, y + 8)],
                                                stroke: HtmlPalette.window, width: 2) }
        swatch("limit") { svg, x, y in svg.path([(x, y + 8), (x, y + 2), (x + 14, y + 2), (x + 14, y + 8)],
                                               stroke: HtmlPalette.limit, width: 2) }
        swatch("task") { svg, x, y in svg.rect(x: x, y: y, width: 14, height: 12, fill: HtmlPalette.task) }
        swatch("expire") { svg, x, y in svg.path([(x + 2, y + 1), (x + 12, y + 1), (x + 7, y + 10)], fill: HtmlPalette.expire) }
        swatch("killed") { svg, x, y in
            svg.path([(x + 1, y), (x + 13, y + 12)], stroke: HtmlPalette.kill, width: 3)
            svg.path([(x + 1, y + 12), (x + 13, y)], stroke: HtmlPalette.kill, width: 3)
        }
        swatch("exited") { svg, x, y in svg.rect(x: x + 6, y: y - 2, width: 3, height: 16, fill: HtmlPalette.kill) }
        swatch("violation") { svg, x, y in svg.rect(x: x + 5, y: y - 2, width: 4, height: 16, fill: HtmlPalette.violation) }
        swatch("protocol lines") { svg, x, y in svg.rect(x: x + 6, y: y + 2, width: 2, height: 8, fill: HtmlPalette.message) }
        swatch("memory warning") { svg, x, y in svg.path(HtmlLane.diamond(x: x + 7, y: y + 6), fill: HtmlPalette.memoryWarning) }
        swatch("pressure reclaim") { svg, x, y in svg.path(HtmlLane.diamond(x: x + 7, y: y + 6), fill: HtmlPalette.pressureReclaim) }
        swatch("not recorded") { svg, x, y in svg.rect(x: x, y: y, width: 14, height: 12, fill: "url(#unrecorded)") }
        svg.text("Hover over a span, a tick, a bar or a mark for its protocol lines and times.", x: 8, y: y + 30,
                 size: 11, fill: "#616161")
        return y + 36
    }

    // MARK: Axis

    /// Time ticks about every 100 px, at 1, 2 or 5 times a power of ten milliseconds, with grid
    /// lines: at most ``maxTicks`` of them, whatever the magnitude of `end` (finite, at least 1).
    private static func drawAxis(end: Double, top: Double, bottom: Double, x: (Double) -> Double,
                                 into svg: inout HtmlSVG) {
        let step = tickStep(end: end)
        svg.line(x1: plotLeft, y1: top + 16, x2: plotRight, y2: top + 16, stroke: "#9e9e9e")
        for index in 0...min(Int(exactly: (end / step).rounded(.down)) ?? maxTicks, maxTicks) {
            let tick = Double(index) * step
            svg.line(x1: x(tick), y1: top + 16, x2: x(tick), y2: bottom, stroke: HtmlPalette.grid)
            svg.line(x1: x(tick), y1: top + 12, x2: x(tick), y2: top + 16, stroke: "#9e9e9e")
            svg.text(HtmlFormat.duration(tick), x: x(tick), y: top + 9, size: 10, fill: "#616161",
                     extra: " text-anchor=\"middle\"")
        }
    }

    /// Ticks on the axis at most (about 10 are drawn).
    static let maxTicks = 25

    /// The axis's step for a picture ending at `end` ms: 1, 2 or 5 times a power of ten, about a
    /// tenth of `end`. Its loop ends for any finite `end`: the power stops growing once past it.
    static func tickStep(end: Double) -> Double {
        let wanted = end / 10
        var step = 0.001
        while step * 10 <= wanted, step < .greatestFiniteMagnitude / 100 { step *= 10 }
        if step * 5 <= wanted { step *= 5 } else if step * 2 <= wanted { step *= 2 }
        return step
    }
}
