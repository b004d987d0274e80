import Testing
@testable import SuperviseShell
@testable import SuperviseReport

/// Memory pressure in the picture: a diamond per `memory-warning`, another where pressure
/// reclaimed a child, each with its line as hover; both in the legend.
@Suite(.timeLimit(.minutes(5))) struct MemoryMarksTests {
    typealias Report = HtmlReportTests

    static let warned = Report.child(name: "app", state: "active", timeline: [
        Report.entry(1, "event", "did-finish-launching foreground"), Report.entry(1, "state", "active"),
        Report.entry(300, "event", "memory-warning moderate"), Report.entry(2300, "event", "memory-warning critical"),
    ])

    static let reclaimed = Report.child(name: "parked", state: "not-running", timeline: [
        Report.entry(1, "state", "suspended"),
        Report.entry(2300, "note", "reclaimed: memory pressure critical: some 45.0% recently, avg10 12.3% (reclaims at low)"),
        Report.entry(2300, "state", "terminating"), Report.entry(2310, "state", "not-running"),
    ], exits: [Report.exit(137, by: "reclaim", at: 2310, "killed by SIGKILL (9)")])

    @Test func eachWarningAndEachPressureReclaimIsADiamondWithItsLine() throws {
        let page = try HtmlReport.page(for: Report.report([Self.warned, Self.reclaimed]))
        let warnings = page.components(separatedBy: "fill=\"\(HtmlPalette.memoryWarning)\"><title>").dropFirst()
        #expect(warnings.map { String($0.prefix { $0 != "<" }) } == ["300 ms event: memory-warning moderate",
                                                                    "2.3 s event: memory-warning critical"])
        let reclaims = page.components(separatedBy: "fill=\"\(HtmlPalette.pressureReclaim)\"><title>").dropFirst()
        #expect(reclaims.count == 1 && reclaims.first?.hasPrefix("2.3 s note: reclaimed: memory pressure critical") == true,
                "\(reclaims)")
    }

    @Test func theLegendShowsBothMarks() throws {
        let page = try HtmlReport.page(for: Report.report([Self.warned]))
        #expect(page.contains("fill=\"\(HtmlPalette.memoryWarning)\"/>\n<text x=") && page.contains(">memory warning</text>"))
        #expect(page.contains("fill=\"\(HtmlPalette.pressureReclaim)\"/>\n<text x=") && page.contains(">pressure reclaim</text>"))
    }
}
