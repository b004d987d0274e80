import Testing
import SuperviseConfig
@testable import SuperviseShell

/// The report and the log never let input reach where it must not (the file itself: ResultFileTests).
@Suite(.timeLimit(.minutes(5))) struct ReportSafetyTests {
    @Test(arguments: [("a\u{1B}[2Jb", "a\\u001b[2Jb"), ("x\rsupervise: y: suspended", "x\\rsupervise: y: suspended"),
                      ("bell\u{07}", "bell\\u0007"), ("two\nlines", "two\\nlines"), ("del\u{7F}", "del\\u007f"),
                      ("csi\u{9B}", "csi\\u009b"), ("plain é", "plain é")])
    func controlCharactersAreEscaped(text: String, expected: String) {
        #expect(ControlEscapes.escaped(text) == expected)
    }

    @Test func jsonStringsEscapeTheSameControls() {
        #expect(JSONValue.string("a\u{1B}\"b\n").serialized() == "\"a\\u001b\\\"b\\n\"")
    }
}
