import Foundation
import Testing
import SuperviseTestSupport

/// The HTML picture of a real run, rendered by headless Chromium: the screenshot's pixels show each
/// child's states in its own lane, in order, its task, and the violation red where the violation is.
@Suite(.timeLimit(.minutes(5))) struct PictureTests {
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

    @Test(.skip("rendering in Chromium", because: missingReason, in: suite))
    func chromiumDrawsEachLaneWithItsStatesTaskAndViolation() throws {
        let html = temporary.file("run.html"), png = temporary.file("run.png")
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/ci/two-children.toml").path
        let run = try Supervise.run(["--config", config, "--html", html], stdin: Self.script)
        #expect(run.status == 124, "\(run.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        let bands = Self.bands(page)
        let tidy = try #require(bands["tidy"], "no lane for tidy")
        let uploader = try #require(bands["uploader"], "no lane for uploader")
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
        #expect(uploaderBlue.count > 200, "uploader's background span")
        #expect(!uploaderRed.isEmpty, "the violation, red, in uploader's lane")
        #expect((uploaderRed.first ?? .min) > (uploaderBlue.first ?? .max), "the violation ends the background span")
        #expect(image.columns(of: purple, rows: uploader, within: plot).isEmpty, "uploader is never suspended")
        // The lanes are where the page says: no state colour between them.
        let between = (tidy.upperBound + 30)..<(uploader.lowerBound - 2)
        #expect(!between.isEmpty && image.columns(of: purple, rows: between, within: plot).isEmpty
                && image.columns(of: blue, rows: between, within: plot).isEmpty, "\(between)")
    }
}
