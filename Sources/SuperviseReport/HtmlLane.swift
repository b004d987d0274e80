import SuperviseShell
/// One child's lane of the picture: brackets for the window and the limit, its states as
/// coloured spans, a tick per moment with protocol lines, its tasks as bars, its exits and
/// violations. Every shape's hover text (`<title>`) says what it is and the lines of its moment.
struct HtmlLane {
    /// Offsets from the lane's top. The labels (`run N`, violations, `still …`) have a row of
    /// their own above the brackets, so that their white backing hides no bracket's end.
    static let labelRow = 13.0, windowRow = 22.0, limitRow = 32.0, stateTop = 40.0, stateHeight = 20.0
    static let tickTop = 62.0, tickHeight = 8.0, taskTop = 74.0, taskRowHeight = 16.0, bottomPadding = 8.0
    /// Task rows at most; later overlapping tasks share the last row.
    static let maxTaskRows = 8
    /// Task bars drawn at most per child; the rest are counted in the lane.
    static let maxTaskBars = 2_000
    /// Lines a hover shows at most.
    static let maxHoverLines = 15

    let child: HtmlRun.Child
    let end: Double
    /// The x of a time in milliseconds.
    let x: (Double) -> Double
    let left: Double, right: Double
    /// When each run exited, in order; and for each task ID, when the violations that name it
    /// were: looked up by binary search, so that no task looks at every exit or violation.
    private let exitTimes: [Double]
    private let violationTimes: [String: [Double]]

    init(child: HtmlRun.Child, end: Double, x: @escaping (Double) -> Double, left: Double, right: Double) {
        self.child = child
        self.end = end
        self.x = x
        self.left = left
        self.right = right
        exitTimes = child.exits.compactMap { $0?.at }.sorted()
        var violationTimes: [String: [Double]] = [:]
        for violation in child.violations {
            for id in Set(violation.taskIDs) { violationTimes[id, default: []].append(violation.at) }
        }
        self.violationTimes = violationTimes.mapValues { $0.sorted() }
    }

    /// The lane's height, for `rows` task rows.
    static func height(taskRows: Int) -> Double {
        max(taskTop + Double(taskRows) * taskRowHeight + bottomPadding, 90)
    }

    /// Which row each of the first ``maxTaskBars`` tasks goes in: the first whose last bar has ended.
    var taskRows: [Int] {
        var rowEnds: [Double] = []
        return child.tasks.prefix(Self.maxTaskBars).map { task in
            let finish = taskEnd(task)
            if let row = rowEnds.firstIndex(where: { $0 <= task.begin }) {
                rowEnds[row] = finish
                return row
            }
            if rowEnds.count < Self.maxTaskRows {
                rowEnds.append(finish)
                return rowEnds.count - 1
            }
            rowEnds[Self.maxTaskRows - 1] = max(rowEnds[Self.maxTaskRows - 1], finish)
            return Self.maxTaskRows - 1
        }
    }

    /// Where a task's bar ends: its `end`, else the exit of its run, else the picture's end.
    func taskEnd(_ task: HtmlRun.Task) -> Double {
        if let end = task.end { return end }
        let next = Self.firstIndex(in: exitTimes, atOrAfter: task.begin)
        return next < exitTimes.count ? exitTimes[next] : end
    }

    /// The lane's band, drawn before the time grid so the grid shows through.
    func drawBackground(top: Double, into svg: inout HtmlSVG) {
        svg.rect(x: left, y: top, width: right - left, height: Self.height(taskRows: (taskRows.max() ?? -1) + 1) - 2,
                 fill: HtmlPalette.laneBackground)
    }

    func draw(top: Double, into svg: inout HtmlSVG) {
        let rows = taskRows
        let height = Self.height(taskRows: (rows.max() ?? -1) + 1)
        svg.group([("class", "lane"), ("data-child", child.name),
                   ("data-state-top", HtmlFormat.coordinate(top + Self.stateTop)),
                   ("data-state-bottom", HtmlFormat.coordinate(top + Self.stateTop + Self.stateHeight))]) { svg in
            drawLabel(top: top, into: &svg)
            drawStates(top: top, into: &svg)
            drawTicks(top: top, into: &svg)
            drawMemoryMarks(top: top, into: &svg)
            drawTasks(top: top, rows: rows, into: &svg)
            drawExits(top: top, into: &svg)
            // A violation's line under the brackets, whose closing ticks it would hide (a limit
            // violation is judged at the limit's deadline); its label above them, in the label row.
            drawViolationLines(top: top, height: height, into: &svg)
            drawBrackets(top: top, into: &svg)
            drawViolationLabels(top: top, into: &svg)
        }
    }

    // MARK: Label

    private func drawLabel(top: Double, into svg: inout HtmlSVG) {
        let command = child.command.joined(separator: " ")
        svg.text(Self.clipped(child.name, to: 22), x: 8, y: top + Self.stateTop + 14, size: 13,
                 extra: " font-weight=\"bold\"", title: "\(child.name): \(command)")
        let pid = child.pid.map { "pid \($0)" } ?? "never ran"
        svg.text("\(pid) · \(child.freezer)", x: 8, y: top + Self.stateTop + 30, size: 10, fill: "#616161")
        let last = child.exits.last ?? nil
        let ending = last.map { "exit \($0.status.map(String.init) ?? "?") (\($0.by))" } ?? "still \(child.state)"
        let runs = child.exits.count > 1 ? " · \(child.exits.count) runs" : ""
        svg.text(ending + runs, x: 8, y: top + Self.stateTop + 43, size: 10, fill: "#616161",
                 title: last?.description)
    }

    // MARK: States

    /// The lifecycle entries left out by the cap lie between these two instants (the last kept of
    /// the first group and the first state kept after them); `nil` when nothing was left out.
    var unrecordedGap: (from: Double, to: Double)? {
        guard child.lifecycleEntriesDropped > 0 else { return nil }
        let lifecycle = child.timeline.filter { !$0.isMessage }
        guard lifecycle.count > Timeline.lifecycleLimit else { return nil }
        let from = lifecycle[Timeline.lifecycleLimit - 1].milliseconds
        let to = lifecycle[Timeline.lifecycleLimit...].first { $0.kind == "state" }?.milliseconds ?? end
        return (from, to)
    }

    /// `(state, from, to)` for each span: from each state entry to the next (or the picture's end),
    /// cut where entries were left out; `launching` before the first state.
    var stateSpans: [(state: String, from: Double, to: Double)] {
        let states = child.timeline.filter { $0.kind == "state" }
        var spans: [(String, Double, Double)] = []
        if let first = child.timeline.first, let firstState = states.first, first.milliseconds < firstState.milliseconds {
            spans.append(("launching", first.milliseconds, firstState.milliseconds))
        }
        let gap = unrecordedGap
        for (index, entry) in states.enumerated() {
            var to = index + 1 < states.count ? states[index + 1].milliseconds : end
            if let gap, entry.milliseconds <= gap.from, to > gap.from { to = gap.from }
            if let gap, entry.milliseconds > gap.from, entry.milliseconds < gap.to { continue }
            spans.append((entry.text, entry.milliseconds, to))
        }
        return spans
    }

    private func drawStates(top: Double, into svg: inout HtmlSVG) {
        let y = top + Self.stateTop
        svg.line(x1: left, y1: y + Self.stateHeight / 2, x2: right, y2: y + Self.stateHeight / 2, stroke: "#e0e0e0")
        let entries = child.timeline
        for span in stateSpans {
            guard let fill = HtmlPalette.state(span.state) else { continue }
            // A report edited by hand may have its times out of order: never a range that runs backwards.
            let first = Self.firstIndex(in: entries, atOrAfter: span.from)
            let lines = entries[first..<max(first, Self.firstIndex(in: entries, atOrAfter: span.to))]
            let title = "\(span.state) · \(HtmlFormat.duration(span.from)) → \(HtmlFormat.duration(span.to))"
                + " (\(HtmlFormat.duration(span.to - span.from)))" + Self.hoverLines(lines.lazy.map(\.line))
            svg.rect(x: x(span.from), y: y, width: max(x(span.to) - x(span.from), 1), height: Self.stateHeight,
                     fill: fill, title: title)
        }
        if let gap = unrecordedGap {
            svg.rect(x: x(gap.from), y: y - 2, width: max(x(gap.to) - x(gap.from), 2), height: Self.stateHeight + 4,
                     fill: "url(#unrecorded)",
                     title: "\(HtmlFormat.count(child.lifecycleEntriesDropped)) lifecycle entries not recorded between "
                        + "\(HtmlFormat.duration(gap.from)) and \(HtmlFormat.duration(gap.to)) (the report's cap)")
            svg.text("\(HtmlFormat.count(child.lifecycleEntriesDropped)) entries not recorded", x: x(gap.from) + 2,
                     y: y + Self.stateHeight + 10, size: 10, fill: "#424242")
        }
        let last = child.exits.last ?? nil
        if last == nil || child.state != "exited" {
            svg.label("still \(child.state) when the report was written ▸", x: right - 4, y: top + Self.labelRow,
                      size: 10, fill: "#424242", fromRight: true)
        }
        for start in runStarts.dropFirst() {
            let column = x(start.at).rounded(.down) + 0.5  // a 1-px line on one pixel column: crisp
            svg.line(x1: column, y1: top + 2, x2: column, y2: y + Self.stateHeight,
                     stroke: HtmlPalette.runStart, extra: " stroke-dasharray=\"3 2\"")
            svg.label("run \(start.run)", x: column + 3, y: top + Self.labelRow, size: 10, fill: HtmlPalette.runStart)
        }
    }

    /// Where each run begins: the first state that has a process after the child has run and
    /// stopped having one (`exited`, or `not-running` after a reclaim). A `not-running` before
    /// the first launch (`autostart = false`) ends no run.
    var runStarts: [(run: Int, at: Double)] {
        var starts: [(Int, Double)] = []
        var stopped = true
        for entry in child.timeline where entry.kind == "state" {
            let hasNoProcess = entry.text == "exited" || entry.text == "not-running"
            if stopped, !hasNoProcess { starts.append((starts.count + 1, entry.milliseconds)) }
            stopped = hasNoProcess
        }
        return starts
    }

    // MARK: Brackets

    /// The window and the limit of each `did-enter-background`, from it to the deadline, cut where
    /// the child stopped running in the background (any state but `background`, or the next entry).
    private func drawBrackets(top: Double, into svg: inout HtmlSVG) {
        let entries = child.timeline
        for (index, entry) in entries.enumerated() where entry.kind == "event" {
            let fields = entry.text.split(separator: " ")
            guard fields.count >= 4, fields[0] == "did-enter-background",
                  let window = Double(fields[2]), let limit = Double(fields[3]) else { continue }
            let leaves = entries[(index + 1)...].first { later in
                (later.kind == "state" && ["active", "suspending", "suspended", "terminating", "exited"].contains(later.text))
                    || (later.kind == "event" && later.text.hasPrefix("did-enter-background "))
            }?.milliseconds ?? end
            let seq = fields[1]
            if window > 0 {
                bracket(from: entry.milliseconds, deadline: entry.milliseconds + window, cut: leaves,
                        y: top + Self.windowRow, colour: HtmlPalette.window,
                        title: "window of background entry \(seq): \(HtmlFormat.duration(window)), until "
                            + HtmlFormat.duration(entry.milliseconds + window), into: &svg)
            }
            bracket(from: entry.milliseconds, deadline: entry.milliseconds + limit, cut: leaves,
                    y: top + Self.limitRow, colour: HtmlPalette.limit,
                    title: "limit of background entry \(seq): \(HtmlFormat.duration(limit)), until "
                        + HtmlFormat.duration(entry.milliseconds + limit), into: &svg)
        }
    }

    /// `[ … ]` from `from` to `deadline`; only `[ …` when the child left before the deadline.
    private func bracket(from: Double, deadline: Double, cut: Double, y: Double, colour: String, title: String,
                         into svg: inout HtmlSVG) {
        let start = x(from), finish = x(min(deadline, cut))
        var points = [(start, y + 5), (start, y), (max(finish, start + 1), y)]
        if deadline <= cut { points.append((max(finish, start + 1), y + 5)) }
        svg.path(points, stroke: colour, width: 2, title: title)
    }

    // MARK: Protocol lines

    /// One tick per pixel column that has protocol lines, notes or freezes; its hover lists them.
    private func drawTicks(top: Double, into svg: inout HtmlSVG) {
        var columns: [(column: Int, lines: [String], error: Bool)] = []
        for entry in child.timeline where entry.kind != "state" && entry.kind != "violation" {
            let column = Int(x(entry.milliseconds).rounded(.down))
            if columns.last?.column == column {
                columns[columns.count - 1].lines.append(entry.line)
                columns[columns.count - 1].error = columns[columns.count - 1].error || entry.kind == "error"
            } else {
                columns.append((column, [entry.line], entry.kind == "error"))
            }
        }
        for column in columns {
            let count = column.lines.count
            svg.rect(x: Double(column.column), y: top + Self.tickTop, width: 1.5, height: Self.tickHeight,
                     fill: column.error ? HtmlPalette.protocolError : HtmlPalette.message,
                     title: "\(count) line\(count == 1 ? "" : "s")" + Self.hoverLines(column.lines))
        }
        if child.messagesDropped > 0, let last = child.timeline.last(where: \.isMessage) {
            svg.text("\(HtmlFormat.count(child.messagesDropped)) later protocol messages not recorded ▸",
                     x: x(last.milliseconds) + 3, y: top + Self.tickTop + Self.tickHeight, size: 10, fill: "#424242")
        }
    }

    // MARK: Tasks

    private func drawTasks(top: Double, rows: [Int], into svg: inout HtmlSVG) {
        for (task, row) in zip(child.tasks, rows) {
            let y = top + Self.taskTop + Double(row) * Self.taskRowHeight
            let finish = taskEnd(task)
            let times = violationTimes[task.id] ?? []
            let first = Self.firstIndex(in: times, atOrAfter: task.begin)
            let violated = first < times.count && times[first] <= (task.end ?? .infinity)
            var title = "task \(task.id)\(task.name.map { " (\($0))" } ?? ""): begun \(HtmlFormat.duration(task.begin)), "
            if task.refused {
                title += "refused (answered with expire at once)"
            } else if let end = task.end {
                title += "ended \(HtmlFormat.duration(end)) (\(HtmlFormat.duration(end - task.begin)))"
            } else {
                title += "never ended"
            }
            if let expire = task.expire, !task.refused { title += "; expire sent \(HtmlFormat.duration(expire))" }
            if violated { title += "; still open at a violation" }
            svg.rect(x: x(task.begin), y: y, width: max(x(finish) - x(task.begin), 2), height: 12,
                     fill: violated ? HtmlPalette.violation : HtmlPalette.task,
                     extra: " stroke=\"#9e7b00\" stroke-width=\"0.5\"", title: title)
            svg.text(Self.clipped(task.label, to: 40), x: x(task.begin) + 3, y: y + 10, size: 10,
                     fill: violated ? "#ffffff" : "#212121")
            if let expire = task.expire {
                let tip = x(expire)
                svg.path([(tip - 5, y - 3), (tip + 5, y - 3), (tip, y + 5)], fill: HtmlPalette.expire,
                         title: "expire \(task.id) at \(HtmlFormat.duration(expire))" + (task.refused ? " (refused)" : ""))
            }
        }
        let notDrawn = max(child.tasks.count - Self.maxTaskBars, 0) + child.tasksNotRecorded
        if notDrawn > 0 {
            svg.text("+ \(HtmlFormat.count(notDrawn)) more tasks not drawn", x: right - 4,
                     y: top + Self.taskTop + Double((rows.max() ?? 0) + 1) * Self.taskRowHeight, size: 10,
                     fill: "#424242", extra: " text-anchor=\"end\"")
        }
    }

    // MARK: Exits and violations

    private func drawExits(top: Double, into svg: inout HtmlSVG) {
        let y = top + Self.stateTop
        for (run, exit) in child.exits.enumerated() {
            guard let exit, let at = exit.at else { continue }
            let title = "run \(run + 1): \(exit.description) at \(HtmlFormat.duration(at)) (by \(exit.by))"
            let middle = x(at)
            if exit.wasKilled {
                svg.path([(middle - 6, y + 4), (middle + 6, y + 16)], stroke: HtmlPalette.kill, width: 3, title: title)
                svg.path([(middle - 6, y + 16), (middle + 6, y + 4)], stroke: HtmlPalette.kill, width: 3, title: title)
            } else {
                svg.rect(x: middle - 1.5, y: y - 3, width: 3, height: Self.stateHeight + 6, fill: HtmlPalette.kill,
                         title: title)
            }
        }
    }

    private func drawViolationLines(top: Double, height: Double, into svg: inout HtmlSVG) {
        for violation in child.violations {
            svg.rect(x: x(violation.at) - 1.5, y: top, width: 3, height: height - 2, fill: HtmlPalette.violation,
                     title: Self.title(of: violation))
        }
    }

    private func drawViolationLabels(top: Double, into svg: inout HtmlSVG) {
        for violation in child.violations {
            let at = x(violation.at)
            let title = Self.title(of: violation)
            let nearRight = at > right - 160
            svg.label("\(violation.kind) violation: \(violation.action)", x: nearRight ? at - 5 : at + 5,
                      y: top + Self.labelRow, size: 11, fill: HtmlPalette.violation, bold: true, fromRight: nearRight,
                      title: title)
        }
    }

    /// `expiry violation at 2.01 s: killed; open tasks: t1`.
    static func title(of violation: HtmlRun.Violation) -> String {
        let tasks = violation.taskIDs.isEmpty ? "" : "; open tasks: " + violation.taskIDs.joined(separator: ", ")
        return "\(violation.kind) violation at \(HtmlFormat.duration(violation.at)): \(violation.action)" + tasks
    }

    // MARK: Text

    /// The first ``maxHoverLines`` of `lines`, each on its own line, and how many more.
    static func hoverLines(_ lines: some Collection<String>) -> String {
        guard !lines.isEmpty else { return "" }
        var text = "\n" + lines.prefix(maxHoverLines).joined(separator: "\n")
        if lines.count > maxHoverLines { text += "\n… and \(HtmlFormat.count(lines.count - maxHoverLines)) more" }
        return text
    }

    /// The index of the first entry at or after `instant` (entries are in time order).
    static func firstIndex(in entries: [HtmlRun.Entry], atOrAfter instant: Double) -> Int {
        firstIndex(in: entries.lazy.map(\.milliseconds), atOrAfter: instant)
    }

    /// The index of the first time at or after `instant` in `times` (in order).
    static func firstIndex<Times: RandomAccessCollection<Double>>(in times: Times, atOrAfter instant: Double) -> Int
        where Times.Index == Int {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < instant { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `text` cut to `count` characters with `…`.
    static func clipped(_ text: String, to count: Int) -> String {
        text.count <= count ? text : String(text.prefix(count - 1)) + "…"
    }
}
