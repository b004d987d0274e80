import SuperviseLifecycle

/// A JUnit XML report: one `<testsuite>` of test cases, each passed or failed once, each with
/// what happened as its `<system-out>`.
public struct JUnitReport: Equatable, Sendable {
    /// One test case: a child, or a failed `wait` that names no child.
    public struct TestCase: Equatable, Sendable {
        public var name: String
        public var classname: String
        /// How long it ran (the `time` attribute, in seconds).
        public var time: Duration
        /// Why it failed; `nil` when it passed.
        public var failure: Failure?
        /// What happened, passed or failed (`<system-out>`); `nil` for none.
        public var output: String?

        public init(name: String, classname: String, time: Duration, failure: Failure? = nil, output: String? = nil) {
            self.name = name
            self.classname = classname
            self.time = time
            self.failure = failure
            self.output = output
        }
    }

    /// A test case's `<failure message="…" type="…">body</failure>`.
    public struct Failure: Equatable, Sendable {
        public var message: String
        public var type: String
        public var body: String

        public init(message: String, type: String, body: String) {
            self.message = message
            self.type = type
            self.body = body
        }
    }

    public var suiteName: String
    public var cases: [TestCase]

    public init(suiteName: String, cases: [TestCase]) {
        self.suiteName = suiteName
        self.cases = cases
    }

    /// The document, every text and attribute value escaped (``XMLText``).
    public var xml: String {
        let failures = cases.filter { $0.failure != nil }.count
        let total = cases.reduce(Duration.zero) { $0 + $1.time }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuite name=\"\(XMLText.escapedAttribute(suiteName))\" tests=\"\(cases.count)\""
            + " failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"\(Self.seconds(total))\">\n"
        for testCase in cases {
            out += "  <testcase name=\"\(XMLText.escapedAttribute(testCase.name))\""
                + " classname=\"\(XMLText.escapedAttribute(testCase.classname))\" time=\"\(Self.seconds(testCase.time))\""
            guard testCase.failure != nil || testCase.output != nil else {
                out += "/>\n"
                continue
            }
            out += ">\n"
            if let failure = testCase.failure {
                out += "    <failure message=\"\(XMLText.escapedAttribute(failure.message))\""
                    + " type=\"\(XMLText.escapedAttribute(failure.type))\">"
                    + XMLText.escapedText(failure.body) + "</failure>\n"
            }
            if let output = testCase.output {
                out += "    <system-out>" + XMLText.escapedText(output) + "</system-out>\n"
            }
            out += "  </testcase>\n"
        }
        return out + "</testsuite>\n"
    }

    /// `1.250`: whole milliseconds as seconds, never negative.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.wholeMilliseconds)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
