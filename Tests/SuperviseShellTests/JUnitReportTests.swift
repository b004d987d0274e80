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

/// The GitHub workflow commands printed under `GITHUB_ACTIONS=true`.
@Suite(.timeLimit(.minutes(5))) struct GitHubAnnotationTests {
    @Test func anErrorIsOneLine() {
        #expect(GitHubAnnotation.error(title: "supervise: worker", message: "expiry violation")
            == "::error title=supervise: worker::expiry violation\n")
    }

    @Test func percentCarriageReturnAndNewlineAreEncodedAndACommaInTheTitle() {
        #expect(GitHubAnnotation.error(title: "a,b%\n", message: "100% done\r\nnext, line")
            == "::error title=a%2Cb%25%0A::100%25 done%0D%0Anext, line\n")
    }
}
