import Foundation
import Testing
import SuperviseTestSupport

/// The HTML picture of a real run, rendered by headless Chromium: the screenshot's pixels show each
/// child's states in its own lane, in order, its task, and the violation red where the violation is.
/// Serialized: each test starts a headless Chromium, which takes the cores for seconds.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct PictureTests {
    static let suite = "PictureTests"
    let temporary = TemporaryDirectory(prefix: "supervise-picture")

    /// Debian's `chromium` package (scripts/setup-debian.sh installs it), or why the test can't render.
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let missingReason: String? = {
        if chromium == nil { return "Chromium is not installed (Debian's chromium package: scripts/setup-debian.sh)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return "python3 (decodes the screenshot) is not installed" }
        return nil
    }()

    /// examples/ci/two-children.toml, as docs/report.md runs it: `tidy` goes background, flushes under a task,
    /// is suspended, comes back to the foreground; `uploader` holds its task past the limit and is killed.
    /// The first `sleep` keeps both active for 50 ms, so that the active span is wider than a pixel however
    /// fast the launch (about 1.5 ms of a 2 s run: under a pixel of the 1,000-pixel plot).
    static let script = "sleep 50ms\nbackground all\nwait exited uploader timeout=10s\nforeground tidy\nwait active tidy\nterminate all\n"

    /// A lane's state band as the page places it: `data-state-top` and `data-state-bottom` by child.
    static func bands(_ page: String) -> [String: Range<Int>] {
        var bands: [String: Range<Int>] = [:]
        for piece in page.components(separatedBy: "data-child=\"").dropFirst() {
            let fields = piece.components(separatedBy: "\"")
            guard fields.count > 4, let top = Double(fields[2]), let bottom = Double(fields[4]) else { continue }
            bands[fields[0]] = Int(top.rounded(.up))..<Int(bottom.rounded(.down))
        }
        return bands
    }

    /// How far past its limit's deadline the violation of `name` was judged, in pixels of the
    /// 1,000-pixel plot that spans the report's times (its latest `t_ms`), rounded up.
    static func latenessInPixels(of name: String, in report: [String: Any]) -> Int {
        let children = report["children"] as? [[String: Any]] ?? []
        let end = children.flatMap { $0["timeline"] as? [[String: Any]] ?? [] }
            .compactMap { $0["t_ms"] as? Double }.max() ?? 0
        guard end > 0, let child = children.first(where: { $0["name"] as? String == name }),
              let judged = (child["violations"] as? [[String: Any]])?.first?["at_ms"] as? Double,
              let entry = (child["timeline"] as? [[String: Any]])?.first(where: {
                  ($0["text"] as? String)?.hasPrefix("did-enter-background ") == true }),
              let start = entry["t_ms"] as? Double,
              let fields = (entry["text"] as? String)?.split(separator: " "), fields.count >= 4,
              let limit = Double(fields[3]) else { return 0 }
        return Int((max(0, judged - (start + limit)) / end * 1000).rounded(.up))
    }

    @Test(.skip("rendering in Chromium", because: missingReason, in: suite))
    func chromiumDrawsEachLaneWithItsStatesTaskAndViolation() throws {
        let html = temporary.file("run.html")
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/ci/two-children.toml").path
        let run = try Supervise.run(["--config", config, "--html", html], stdin: Self.script)
        #expect(run.status == 124, "\(run.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        let bands = Self.bands(page)
        let tidy = try #require(bands["tidy"], "no lane for tidy")
        let uploader = try #require(bands["uploader"], "no lane for uploader")
        let image = try render(html, page: page)
        let green = "#43a047", blue = "#1e88e5", purple = "#5e35b1", yellow = "#fdd835", red = "#d50000"
        let plot = 180..<1180
        // tidy: active, then background, then suspended, left to right; its flush task below; no violation.
        let tidyBlue = image.columns(of: blue, rows: tidy, within: plot)
        let tidyPurple = image.columns(of: purple, rows: tidy, within: plot)
        #expect(!image.columns(of: green, rows: tidy, within: plot).isEmpty, "tidy's active span")
        #expect(!tidyBlue.isEmpty && !tidyPurple.isEmpty, "tidy's background and suspended spans")
        #expect((tidyBlue.first ?? .max) < (tidyPurple.first ?? .min), "background before suspended")
        #expect(image.columns(of: purple, rows: tidy, within: plot).count > 200, "suspended for most of the run")
        #expect(!image.columns(of: yellow, rows: tidy.upperBound..<tidy.upperBound + 40, within: plot).isEmpty,
                "tidy's task bar under its states")
        #expect(image.columns(of: red, rows: tidy, within: plot).isEmpty, "no violation in tidy's lane")
        // uploader: in the background until the violation, red at its end; never suspended.
        let uploaderBlue = image.columns(of: blue, rows: uploader, within: plot)
        let uploaderRed = image.columns(of: red, rows: uploader, within: plot)
        // What the report said of uploader, for a failure (seen once, on a loaded CI machine).
        let said = ((run.report?["children"] as? [[String: Any]]) ?? []).first { $0["name"] as? String == "uploader" }
            .map { ($0["timeline"] as? [[String: Any]] ?? []).map { "\($0["t_ms"] ?? "?") \($0["kind"] ?? "?") \($0["text"] ?? "")" } } ?? []
        #expect(uploaderBlue.count > 200, "uploader's background span, rows \(uploader); its timeline: \(said.prefix(30))")
        #expect(!uploaderRed.isEmpty, "the violation, red, in uploader's lane")
        #expect((uploaderRed.first ?? .min) > (uploaderBlue.first ?? .max), "the violation ends the background span")
        #expect(image.columns(of: purple, rows: uploader, within: plot).isEmpty, "uploader is never suspended")
        // The limit bracket's closing tick, at the violation (judged at the deadline), shows above the
        // state band, over the violation's line; the violation's label is above the brackets, hiding none.
        let limit = "#6d4c41"
        let limitRow = (uploader.lowerBound - 8)..<(uploader.lowerBound - 2)
        // The violation is drawn when it was judged, which a busy machine makes later than the
        // deadline the bracket ends at (report.md): look that much further left.
        let late = Self.latenessInPixels(of: "uploader", in: run.report ?? [:])
        let aroundViolation = ((uploaderRed.first ?? 0) - 2 - late)..<((uploaderRed.last ?? 0) + 3)
        #expect(!image.columns(of: limit, rows: limitRow, within: aroundViolation).isEmpty,
                "the limit's end at the violation, columns \(aroundViolation), rows \(limitRow)")
        let aboveBrackets = (uploader.lowerBound - 40)..<(uploader.lowerBound - 20)
        #expect(image.columns(of: red, rows: aboveBrackets, within: plot).count > 40, "the violation's label above the brackets")
        // The lanes are where the page says: no state colour between them.
        let between = (tidy.upperBound + 30)..<(uploader.lowerBound - 2)
        #expect(!between.isEmpty && image.columns(of: purple, rows: between, within: plot).isEmpty
                && image.columns(of: blue, rows: between, within: plot).isEmpty, "\(between)")
    }

    /// examples/parking.toml with the commands its comment pipes in: mail is reclaimed (killed while
    /// suspended) and launched again for its next event, which reclaims photos, left not-running.
    @Test(.skip("rendering in Chromium", because: missingReason, in: suite))
    func chromiumDrawsAReclaimAsAKillTheRelaunchAsARunAndNotRunningInTheLegend() throws {
        let html = temporary.file("run.html")
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/parking.toml").path
        let commands = ["event mail push", "wait suspended mail", "event photos sync", "wait suspended photos",
                        "event backup nightly", "wait suspended backup", "wait not-running mail",
                        "event mail push again", "wait suspended mail", "wait not-running photos", "terminate all"]
        let run = try Supervise.run(["--config", config, "--html", html], stdin: commands.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        let bands = Self.bands(page)
        let mail = try #require(bands["mail"], "no lane for mail")
        let photos = try #require(bands["photos"], "no lane for photos")
        let image = try render(html, page: page)

        let notRunning = "#cfd8dc", kill = "#212121", runMark = "#424242"
        let plot = 180..<1180
        // The legend, above the lanes, has a swatch of not-running's colour; photos' lane ends in it.
        #expect(!image.columns(of: notRunning, rows: 0..<(mail.lowerBound - 60), within: 0..<1200).isEmpty,
                "not-running in the legend")
        #expect(!image.columns(of: notRunning, rows: photos, within: plot).isEmpty, "photos' not-running span")
        // A reclaim is a kill: a cross (12 px wide), not an exit's 3 px bar.
        #expect(image.columns(of: kill, rows: photos, within: plot).count >= 8,
                "photos' reclaim drawn as a cross: \(image.columns(of: kill, rows: photos, within: plot))")
        // mail's relaunch is marked `run 2` (dashed line and label) above its states.
        #expect(!image.columns(of: runMark, rows: (mail.lowerBound - 40)..<(mail.lowerBound - 2), within: plot).isEmpty,
                "run 2 marked in mail's lane")
    }

    /// A screenshot of `html` by headless Chromium, as wide as the page and as tall as its SVG.
    func render(_ html: String, page: String) throws -> Screenshot {
        let png = temporary.file("run.png")
        let height = try #require(page.components(separatedBy: "<svg ").dropFirst().first?
            .components(separatedBy: "height=\"").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) })
        let chrome = Process()
        chrome.executableURL = URL(fileURLWithPath: try #require(Self.chromium))
        chrome.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
                            "--force-color-profile=srgb", "--user-data-dir=\(temporary.file("profile"))",
                            "--screenshot=\(png)", "--window-size=1200,\(height)", URL(fileURLWithPath: html).absoluteString]
        let output = CapturedOutput(of: chrome)
        try chrome.run()
        let ended = eventually(timeout: 60, interval: 0.05) { !chrome.isRunning }
        if !ended { chrome.terminate() }
        chrome.waitUntilExit()
        output.expectEnd(of: "chromium", timeout: 5)
        #expect(ended && chrome.terminationStatus == 0, "chromium: \(output.stderr)")
        let image = try Screenshot(png: png)
        #expect(image.width == 1200 && image.height == height, "\(image.width)×\(image.height)")
        return image
    }
}
