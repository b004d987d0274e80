import FoundationXML
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseShell
import SuperviseTestSupport

/// The JUnit XML: its shape, its escaping, and that a strict parser takes it.
@Suite(.timeLimit(.minutes(5))) struct JUnitReportTests {
    let hostile = "a&b <c> \"d\" 'e' ]]> \u{1B}[2J\u{07}\r\n\ttab \u{FFFE} é"

    func report(failure: JUnitReport.Failure?) -> JUnitReport {
        JUnitReport(suiteName: "supervise", cases: [
            JUnitReport.TestCase(name: "web", classname: "supervise", time: .milliseconds(1250)),
            JUnitReport.TestCase(name: "worker", classname: "supervise", time: .seconds(30), failure: failure),
        ])
    }

    @Test func theWellFormednessCheckRejectsWhatXMLDocumentWouldRecoverFrom() {
        for broken in ["<a>&</a>", "<a><b></a>", "<a x=\"1\" x=\"2\"/>", "<a>\u{1}</a>"] {
            #expect(xmlWellFormednessError(broken) != nil, "\(broken)")
        }
    }

    @Test func onePassedAndOneFailedCase() {
        let failure = JUnitReport.Failure(message: "expiry violation", type: "violation", body: "last lines\n")
        #expect(xmlWellFormednessError(report(failure: failure).xml) == nil)
        #expect(report(failure: failure).xml == """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuite name="supervise" tests="2" failures="1" errors="0" skipped="0" time="31.250">
              <testcase name="web" classname="supervise" time="1.250"/>
              <testcase name="worker" classname="supervise" time="30.000">
                <failure message="expiry violation" type="violation">last lines
            </failure>
              </testcase>
            </testsuite>

            """)
    }

    @Test func everyCaseCarriesItsOutputAfterItsFailure() {
        let failure = JUnitReport.Failure(message: "m", type: "exit", body: "b\n")
        let report = JUnitReport(suiteName: "ci", cases: [
            JUnitReport.TestCase(name: "web", classname: "ci", time: .zero, output: "web: exited with 0\n"),
            JUnitReport.TestCase(name: "worker", classname: "ci", time: .zero, failure: failure, output: "<worker>\n"),
        ])
        #expect(xmlWellFormednessError(report.xml) == nil)
        #expect(report.xml == """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuite name="ci" tests="2" failures="1" errors="0" skipped="0" time="0.000">
              <testcase name="web" classname="ci" time="0.000">
                <system-out>web: exited with 0
            </system-out>
              </testcase>
              <testcase name="worker" classname="ci" time="0.000">
                <failure message="m" type="exit">b
            </failure>
                <system-out>&lt;worker&gt;
            </system-out>
              </testcase>
            </testsuite>

            """)
    }

    @Test(arguments: [(Duration.zero, "0.000"), (.milliseconds(7), "0.007"), (.milliseconds(61_040), "61.040"),
                      (.nanoseconds(999_999), "0.000"), (.seconds(-1), "0.000")])
    func secondsHaveThreeDecimals(duration: Duration, text: String) {
        #expect(JUnitReport.seconds(duration) == text)
    }

    @Test func attributesEscapeMarkupQuotesAndWhitespaceAndReplaceForbiddenControls() {
        #expect(XMLText.escapedAttribute(hostile)
            == "a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; ]]&gt; \\u001b[2J\\u0007&#13;&#10;&#9;tab \\ufffe é")
    }

    @Test func textKeepsNewlinesAndTabsButNotCarriageReturns() {
        #expect(XMLText.escapedText(hostile)
            == "a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos; ]]&gt; \\u001b[2J\\u0007&#13;\n\ttab \\ufffe é")
    }

    @Test func hostileTextParsesBackToWhatWasWrittenApartFromTheForbiddenControls() throws {
        let failure = JUnitReport.Failure(message: hostile, type: "violation", body: hostile)
        let hostileReport = JUnitReport(suiteName: hostile, cases: [
            JUnitReport.TestCase(name: hostile, classname: "supervise", time: .zero, failure: failure),
        ])
        #expect(xmlWellFormednessError(hostileReport.xml) == nil)
        let document = try XMLDocument(xmlString: hostileReport.xml, options: [])
        let readable = "a&b <c> \"d\" 'e' ]]> \\u001b[2J\\u0007\r\n\ttab \\ufffe é"
        let suite = try #require(document.rootElement())
        #expect(suite.attribute(forName: "name")?.stringValue == readable)
        let testCase = try #require(suite.elements(forName: "testcase").first)
        #expect(testCase.attribute(forName: "name")?.stringValue == readable)
        let element = try #require(testCase.elements(forName: "failure").first)
        #expect(element.attribute(forName: "message")?.stringValue == readable)
        #expect(element.stringValue == readable)
    }
}

/// The GitHub workflow commands printed for `--annotations github`: in GitHub's documented grammar
/// (`::error file={name},line={line},title={title}::{message}`), escaped as its toolkit escapes them,
/// and read back as its runner reads them.
@Suite(.timeLimit(.minutes(5))) struct GitHubAnnotationTests {
    /// A command as the Actions runner parses it (`ActionCommand.TryParseV2`): the name up to a
    /// space, the properties up to the next `::`, split on `,` and on the first `=`, each
    /// unescaped `%0D %0A %3A %2C` then `%25`; the message unescaped `%0D %0A` then `%25`.
    struct RunnerCommand: Equatable {
        var name: String
        var properties: [String: String]
        var message: String

        init?(_ line: String) {
            guard line.hasPrefix("::"), let end = line.dropFirst(2).range(of: "::") else { return nil }
            let info = line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound]
            let space = info.firstIndex(of: " ")
            name = String(info[..<(space ?? info.endIndex)])
            properties = [:]
            if let space {
                for property in info[info.index(after: space)...].split(separator: ",") {
                    let pair = property.split(separator: "=", maxSplits: 1)
                    guard pair.count == 2 else { continue }
                    properties[String(pair[0])] = Self.unescaped(String(pair[1]), ["%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","])
                }
            }
            message = Self.unescaped(String(line[end.upperBound...]), ["%0D": "\r", "%0A": "\n"])
        }

        private static func unescaped(_ text: String, _ mappings: KeyValuePairs<String, String>) -> String {
            var text = text
            for (escape, token) in mappings { text = text.replacingOccurrences(of: escape, with: token) }
            return text.replacingOccurrences(of: "%25", with: "%")
        }
    }

    @Test func anErrorIsOneLineAndTheTitlesColonIsEscapedAsTheToolkitDoes() {
        #expect(GitHubAnnotation.error(title: "supervise: worker", message: "expiry violation: t1")
            == "::error title=supervise%3A worker::expiry violation: t1\n")
    }

    @Test func aConfigChildPointsAtItsLineInTheFile() {
        #expect(GitHubAnnotation.error(title: "supervise: worker", file: "/w/ci.toml", line: 12, message: "m")
            == "::error title=supervise%3A worker,file=/w/ci.toml,line=12::m\n")
    }

    @Test func percentCarriageReturnAndNewlineAreEncodedEverywhereAndColonAndCommaInProperties() {
        #expect(GitHubAnnotation.error(title: "a,b%\n:", file: "c:d,e", line: 3, message: "100% done\r\nnext, line: x")
            == "::error title=a%2Cb%25%0A%3A,file=c%3Ad%2Ce,line=3::100%25 done%0D%0Anext, line: x\n")
    }

    /// Whatever the text, the runner reads back exactly the title, file, line and message written.
    @Test(arguments: ["supervise: worker", "a,b=c:d::e%3A%2C%25%", "line\r\nbreak, and %0A literally", "é ✓ \u{1B}[2J"])
    func theRunnerReadsBackWhatWasWritten(text: String) throws {
        let line = GitHubAnnotation.error(title: text, file: "/w/" + text + ".toml", line: 7, message: text)
        #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" }, "one line")
        let command = try #require(RunnerCommand(String(line.dropLast())))
        #expect(command == RunnerCommand(name: "error", properties: ["title": text, "file": "/w/" + text + ".toml", "line": "7"],
                                         message: text))
    }
}

extension GitHubAnnotationTests.RunnerCommand {
    init(name: String, properties: [String: String], message: String) {
        self.name = name
        self.properties = properties
        self.message = message
    }
}
