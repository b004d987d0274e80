import Testing
import Foundation
@testable import SuperviseShell
@testable import SuperviseReport

/// The HTML picture drawn from report JSON: what it shows for each shape a report can have, and
/// that nothing a child wrote comes out as markup.
@Suite(.timeLimit(.minutes(5))) struct HtmlReportTests {
    static func entry(_ at: Double, _ kind: String, _ text: String) -> JSONValue {
        .object([("t_ms", .double(at)), ("kind", .string(kind)), ("text", .string(text))])
    }

    static func exit(_ status: Int64, by: String, at: Double, _ description: String) -> JSONValue {
        .object([("status", .int(status)), ("by", .string(by)), ("in_time", .null), ("at_ms", .double(at)),
                 ("description", .string(description))])
    }

    static func child(name: String = "worker", command: [String] = ["./worker"], state: String = "exited",
                      timeline: [JSONValue], tasks: [JSONValue] = [], violations: [JSONValue] = [],
                      exits: [JSONValue] = [], lifecycleDropped: Int64 = 0, messagesDropped: Int64 = 0) -> JSONValue {
        .object([
            ("name", .string(name)), ("command", .array(command.map(JSONValue.string))), ("pid", .int(42)),
            ("freezer", .string("cgroup2")), ("state", .string(state)),
            ("settings", .object([("window_ms", .int(500)), ("limit_ms", .int(2000)), ("expiry_warning_ms", .int(1000))])),
            ("timeline", .array(timeline)), ("messages_dropped", .int(messagesDropped)),
            ("lifecycle_entries_dropped", .int(lifecycleDropped)), ("tasks", .array(tasks)),
            ("tasks_not_recorded", .int(0)), ("violations", .array(violations)), ("violations_not_recorded", .int(0)),
            ("exit", exits.last ?? .null), ("runs", .array(exits.map { .object([("exit", $0)]) })),
        ])
    }

    static func report(_ children: [JSONValue], exitStatus: Int64 = 0) -> JSONValue {
        .object([("version", .int(2)), ("settings", .object([("freezer", .string("auto"))])),
                 ("exit_status", .int(exitStatus)), ("children", .array(children))])
    }

    /// A worker killed for holding t1 past its limit, as a real run reports it.
    static let violated = child(timeline: [
        entry(1, "request", "hello 1"), entry(1, "event", "did-finish-launching foreground"), entry(1, "state", "active"),
        entry(10, "event", "did-enter-background 1 500 2000"), entry(10, "state", "background"),
        entry(12, "request", "begin t1 upload"), entry(1010, "event", "expire t1"),
        entry(2010, "state", "terminating"), entry(2010, "violation", "expiry violation: killed; open tasks: t1 (upload)"),
        entry(2011, "state", "exited"),
    ], tasks: [.object([("id", .string("t1")), ("name", .string("upload")), ("begin_ms", .double(12)),
                        ("end_ms", .null), ("expire_ms", .double(1010)), ("refused", .bool(false))])],
    violations: [.object([("kind", .string("expiry")), ("at_ms", .double(2010)), ("action", .string("killed")),
                          ("tasks", .array([.object([("id", .string("t1")), ("name", .string("upload"))])]))])],
    exits: [exit(137, by: "violation", at: 2011, "killed by SIGKILL (9)")])

    @Test func aViolationRunShowsItsStatesBracketsTaskExpireKillAndViolation() throws {
        let page = try HtmlReport.page(for: Self.report([Self.violated], exitStatus: 124))
        for colour in [HtmlPalette.state("active")!, HtmlPalette.state("background")!, HtmlPalette.state("terminating")!,
                       HtmlPalette.window, HtmlPalette.limit, HtmlPalette.expire, HtmlPalette.kill, HtmlPalette.violation] {
            #expect(page.contains("fill=\"\(colour)\"") || page.contains("stroke=\"\(colour)\""), "\(colour)")
        }
        #expect(page.contains("exit status 124"))
        #expect(page.contains(">t1 upload</text>"))
        #expect(page.contains("expiry violation: killed</text>"))
        #expect(page.contains("<title>expire t1 at 1.01 s</title>"))
        #expect(page.contains("task t1 (upload): begun 12 ms, never ended; expire sent 1.01 s; still open at a violation"))
        // The background span's hover holds the protocol lines of its moment.
        #expect(page.contains("<title>background · 10 ms → 2.01 s (2 s)\n10 ms event: did-enter-background 1 500 2000"))
        #expect(page.contains("data-child=\"worker\" data-state-top="))
        #expect(!page.contains("<script"), "no script")
        #expect(page.contains("Content-Security-Policy\" content=\"default-src 'none'"))
    }

    @Test func hostileTextFromAChildComesOutInert() throws {
        let hostile = ["</script><script>alert(1)</script>", "<svg onload=alert(1)>", "\" onmouseover=\"alert(1)",
                       "' onfocus='alert(1)", "]]><!-- &amp; \u{1B}[2J"]
        let child = Self.child(name: hostile[0], command: hostile, state: "active",
                               timeline: hostile.enumerated().map { Self.entry(Double($0.offset), "request", $0.element) }
                                   + [Self.entry(9, "state", hostile[1]), Self.entry(10, "note", hostile[2])],
                               tasks: [.object([("id", .string(hostile[3])), ("name", .string(hostile[1])),
                                                ("begin_ms", .double(1)), ("end_ms", .double(5)), ("expire_ms", .null),
                                                ("refused", .bool(false))])],
                               violations: [.object([("kind", .string(hostile[4])), ("at_ms", .double(4)),
                                                     ("action", .string(hostile[2])),
                                                     ("tasks", .array([.object([("id", .string(hostile[0]))])]))])])
        let page = try HtmlReport.page(for: Self.report([child]))
        let tags = Self.tags(page)
        let allowed: Set<String> = ["!DOCTYPE", "html", "head", "meta", "title", "style", "body", "svg", "defs", "pattern",
                                    "rect", "g", "line", "path", "text"]
        for tag in tags {
            #expect(allowed.contains(tag.name), "a tag the writer never makes: <\(tag.name)")
            #expect(!tag.attributes.contains { $0.lowercased().hasPrefix("on") }, "an event handler: \(tag)")
        }
        #expect(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("&lt;svg onload=alert(1)&gt;"))
        #expect(page.contains("&quot; onmouseover=&quot;alert(1)"))
        #expect(page.contains("&apos; onfocus=&apos;alert(1)"))
        #expect(page.contains("]]&gt;&lt;!-- &amp;amp; \\u001b[2J"))
        #expect(!page.contains("\u{1B}"))
    }

    /// Each tag's name and attribute names, read as a browser would: `<` then a name, up to `>`.
    static func tags(_ page: String) -> [(name: String, attributes: [String])] {
        var found: [(String, [String])] = []
        var rest = Substring(page)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: ">") else { break }
            let inside = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if inside.hasPrefix("/") { continue }
            var words: [String] = []
            var word = "", quote: Character? = nil
            for character in inside {
                if let open = quote { if character == open { quote = nil }; continue }
                if character == "\"" || character == "'" { quote = character; continue }
                if character == " " || character == "=" || character == "/" {
                    if !word.isEmpty { words.append(word) }
                    word = ""
                } else {
                    word.append(character)
                }
            }
            if !word.isEmpty { words.append(word) }
            guard let name = words.first else { continue }
            found.append((name, Array(words.dropFirst())))
        }
        return found
    }

    @Test func aReportTruncatedByTheLifecycleCapSaysSoAndHatchesTheGap() throws {
        var timeline: [JSONValue] = []
        for index in 0..<(Timeline.lifecycleLimit + 4) {
            timeline.append(Self.entry(Double(index) * 100, "state", index % 2 == 0 ? "background" : "active"))
        }
        let page = try HtmlReport.page(for: Self.report([Self.child(state: "active", timeline: timeline, lifecycleDropped: 12_345)]))
        #expect(page.contains("worker: 12,345 state, violation, freeze and note entries not recorded (the report&apos;s cap)"))
        #expect(page.contains("fill=\"url(#unrecorded)\"><title>12,345 lifecycle entries not recorded between 499.9 s and 500 s"))
        #expect(page.contains(">12,345 entries not recorded</text>"))
    }

    @Test func messagesDroppedAreNamed() throws {
        let child = Self.child(timeline: [Self.entry(1, "request", "hello 1"), Self.entry(2, "state", "exited")],
                               exits: [Self.exit(0, by: "self", at: 2, "exited with 0")], messagesDropped: 7)
        let page = try HtmlReport.page(for: Self.report([child]))
        #expect(page.contains("worker: 7 protocol messages not recorded after the first 10,000"))
        #expect(page.contains(">7 later protocol messages not recorded ▸</text>"))
    }

    @Test func restartsAreRunsOfOneLane() throws {
        let child = Self.child(timeline: [
            Self.entry(1, "state", "active"), Self.entry(100, "state", "exited"),
            Self.entry(1100, "state", "active"), Self.entry(1500, "state", "exited"),
        ], exits: [Self.exit(1, by: "self", at: 100, "exited with 1"), Self.exit(0, by: "self", at: 1500, "exited with 0")])
        let page = try HtmlReport.page(for: Self.report([child], exitStatus: 1))
        #expect(page.contains(">run 2</text>"))
        #expect(page.contains("exit 0 (self) · 2 runs"))
        #expect(page.contains("<title>run 1: exited with 1 at 100 ms (by self)</title>"))
        #expect(page.contains("<title>run 2: exited with 0 at 1.5 s (by self)</title>"))
        #expect(page.components(separatedBy: "<title>active ·").count == 3, "two active spans, nothing drawn while exited")
    }

    /// A child reclaimed while suspended (killed, then `not-running`) and launched again for an event, as
    /// examples/parking.toml's mail is in a real run.
    static let reclaimed = child(timeline: [
        entry(3, "note", "launched for event push"), entry(3, "state", "background"),
        entry(118, "state", "suspending"), entry(118.4, "state", "suspended"),
        entry(493, "note", "reclaimed: suspended children held 107824 KiB, over the suspended-memory budget of 92160 KiB"),
        entry(493, "state", "terminating"), entry(497, "state", "not-running"),
        entry(497.2, "note", "launched for event push"), entry(497.2, "state", "background"),
        entry(601, "state", "suspending"), entry(601.5, "state", "suspended"), entry(602, "state", "terminating"),
        entry(607, "state", "exited"),
    ], exits: [exit(137, by: "reclaim", at: 497, "killed by SIGKILL (9)"), exit(0, by: "terminate", at: 607, "exited with 0")])

    @Test func aReclaimIsDrawnAsAKillAndTheRelaunchIsMarkedRunTwo() throws {
        let page = try HtmlReport.page(for: Self.report([Self.reclaimed]))
        let cross = "fill=\"none\" stroke=\"\(HtmlPalette.kill)\" stroke-width=\"3\"><title>run 1: killed by SIGKILL (9) at 497 ms (by reclaim)"
        #expect(page.components(separatedBy: cross).count == 3, "a cross (two strokes) at the reclaim")
        #expect(page.contains(">run 2</text>"))
        #expect(!page.contains(">run 3</text>"))
        #expect(page.contains("exit 0 (terminate) · 2 runs"))
        #expect(page.contains("fill=\"\(HtmlPalette.state("not-running")!)\"><title>not-running · 497 ms → 497.2 ms"))
    }

    @Test func everyStateDrawnHasItsColourInTheLegend() throws {
        let page = try HtmlReport.page(for: Self.report([Self.reclaimed]))
        for state in ["background", "suspending", "suspended", "terminating", "not-running"] {
            let colour = try #require(HtmlPalette.state(state))
            #expect(page.contains("fill=\"\(colour)\"/>\n<text x=") && page.contains(">\(state)</text>"),
                    "\(state)'s swatch in the legend")
        }
        #expect(HtmlPalette.state("not-running") != HtmlPalette.state("no such state"), "not drawn as an unknown state")
    }

    /// `autostart = false`: not-running until the first launch, which is run 1.
    @Test func notRunningBeforeTheFirstLaunchEndsNoRun() throws {
        let child = Self.child(timeline: [Self.entry(0, "state", "not-running"), Self.entry(5, "state", "background"),
                                          Self.entry(9, "state", "exited")],
                               exits: [Self.exit(0, by: "self", at: 9, "exited with 0")])
        let page = try HtmlReport.page(for: Self.report([child]))
        #expect(!page.contains(">run 2</text>"))
    }

    /// The violation's label sits above the window and limit brackets, so its white backing hides neither
    /// end; its line is drawn before the brackets, so theirs show over it.
    @Test func aViolationsLabelHidesNoBracket() throws {
        let page = try #require(try HtmlReport.page(for: Self.report([Self.violated], exitStatus: 124))
            .components(separatedBy: "data-child=\"worker\"").last, "the lane's markup, after the legend's")
        let label = try #require(page.components(separatedBy: "\n").first { $0.hasSuffix("expiry violation: killed</text>") })
        let labelBaseline = try #require(Self.number(after: " y=\"", in: label))
        let brackets = page.components(separatedBy: "\n").filter {
            $0.hasPrefix("<path") && ($0.contains("stroke=\"\(HtmlPalette.window)\"") || $0.contains("stroke=\"\(HtmlPalette.limit)\""))
        }
        #expect(brackets.count == 2)
        for bracket in brackets {
            let d = try #require(bracket.components(separatedBy: "d=\"").dropFirst().first?.prefix { $0 != "\"" })
            let ys = d.split(separator: " ").enumerated().filter { $0.offset % 2 == 1 }.compactMap { Double($0.element) }
            #expect(labelBaseline + 3 < (ys.min() ?? 0), "the label's backing (to \(labelBaseline + 3)) above \(bracket)")
        }
        let line = try #require(page.range(of: "<title>expiry violation at 2.01 s"))
        let limit = try #require(page.range(of: "stroke=\"\(HtmlPalette.limit)\""))
        #expect(line.lowerBound < limit.lowerBound, "the violation's line under the limit bracket")
    }

    static func number(after prefix: String, in text: String) -> Double? {
        text.components(separatedBy: prefix).dropFirst().first.flatMap { Double($0.prefix { $0 != "\"" }) }
    }

    @Test func aChildStillRunningWhenTheReportWasWrittenSaysSo() throws {
        let child = Self.child(state: "suspended", timeline: [
            Self.entry(1, "state", "active"), Self.entry(10, "state", "background"), Self.entry(20, "state", "suspending"),
            Self.entry(21, "state", "suspended"),
        ])
        let page = try HtmlReport.page(for: Self.report([child]))
        #expect(page.contains(">still suspended when the report was written ▸</text>"))
        #expect(page.contains("still suspended</text>"), "the lane's label")
        #expect(page.contains("<title>suspended · 21 ms → 21.4 ms"), "its last span runs to the picture's end")
    }

    @Test func aRunWithNoChildSaysNoneWasLaunched() throws {
        let page = try HtmlReport.page(for: Self.report([], exitStatus: 125))
        #expect(page.contains("exit status 125 · 0 children"))
        #expect(page.contains("No child was launched: the run ended (exit status 125) before starting any"))
        #expect(page.contains("<title>supervise run: no children</title>"))
    }

    @Test func aChildThatNeverRanSaysWhy() throws {
        let child = JSONValue.object([("name", .string("gone")), ("pid", .null), ("state", .string("exited")),
                                      ("timeline", .array([Self.entry(1, "note", "cannot run ./gone: No such file"),
                                                           Self.entry(1, "state", "exited")])),
                                      ("runs", .array([.object([("exit", Self.exit(127, by: "self", at: 1, "cannot run ./gone: No such file"))])]))])
        let page = try HtmlReport.page(for: Self.report([child], exitStatus: 127))
        #expect(page.contains(">never ran · ?</text>"))
        #expect(page.contains("cannot run ./gone: No such file"))
    }

    @Test(arguments: [
        (JSONValue.array([]), "not a supervise report: the JSON is not an object"),
        (.object([("version", .int(2))]), "not a supervise report: it has no \"children\" array"),
        (.object([("children", .int(3))]), "not a supervise report: it has no \"children\" array"),
        (.object([("children", .array([.object([]), .string("x")]))]), "not a supervise report: children[1] is not an object"),
    ])
    func aDocumentThatIsNotAReportIsRefused(_ json: JSONValue, _ message: String) {
        #expect(throws: HtmlReportError(message: message)) { try HtmlReport.page(for: json) }
    }

    @Test(arguments: [(0.04, "0 ms"), (23.94, "23.9 ms"), (999.96, "1000 ms"), (1250, "1.25 s"), (61_300, "61.3 s"),
                      (-5, "-5 ms")])
    func durations(_ milliseconds: Double, _ text: String) {
        #expect(HtmlFormat.duration(milliseconds) == text)
    }
}
