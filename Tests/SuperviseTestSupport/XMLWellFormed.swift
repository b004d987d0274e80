import Foundation
import FoundationXML

/// Why `text` is not well-formed XML 1.0, or `nil` when it is.
///
/// Checked with `XMLParser`, which stops at the first error: `XMLDocument` on Linux recovers from
/// errors (a raw `&`, a forbidden control, mismatched tags) and so proves nothing. A mismatched
/// tag still lets `parse()` return `true`, so the parser's error is looked at too.
public func xmlWellFormednessError(_ text: String) -> String? {
    let parser = XMLParser(data: Data(text.utf8))
    let parsed = parser.parse()
    if parsed, parser.parserError == nil { return nil }
    let code = (parser.parserError as NSError?)?.code ?? -1
    return "not well-formed XML (libxml2 error \(code), line \(parser.lineNumber), column \(parser.columnNumber))"
}
