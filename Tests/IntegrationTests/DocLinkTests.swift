import Foundation
import Testing
import SuperviseTestSupport

/// Every relative link of README.md, docs/*.md and the examples' READMEs leads somewhere: the file
/// exists, and a `#fragment` names a heading (as GitHub makes its anchor) or an `<a id>` of the
/// page it points at.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct DocLinkTests {
    static let repository = DocCommandTests.repository

    /// The pages read: the docs DocCommandTests reads, and every README.md under examples/.
    static var pages: [String] {
        let examples = FileManager.default.enumerator(atPath: repository.appendingPathComponent("examples").path)?
            .compactMap { $0 as? String }.filter { $0.hasSuffix("README.md") }.map { "examples/" + $0 } ?? []
        return DocCommandTests.docs() + examples.sorted()
    }

    @Test func everyRelativeLinkLeadsToAFileAndAnAnchorThatExist() throws {
        var broken: [String] = [], anchorsOf: [String: Set<String>] = [:]
        for page in Self.pages {
            let text = try String(contentsOf: Self.repository.appendingPathComponent(page), encoding: .utf8)
            let directory = URL(fileURLWithPath: page).deletingLastPathComponent().relativePath
            for (line, target) in Self.links(in: text) where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = parts[0].isEmpty ? page : Self.normalized(directory + "/" + parts[0])
                let file = Self.repository.appendingPathComponent(path)
                guard FileManager.default.fileExists(atPath: file.path) else {
                    broken.append("\(page):\(line): \(target): no file \(path)")
                    continue
                }
                guard parts.count == 2, path.hasSuffix(".md") else { continue }
                let anchors = anchorsOf[path] ?? Self.anchors(in: (try? String(contentsOf: file, encoding: .utf8)) ?? "")
                anchorsOf[path] = anchors
                if !anchors.contains(String(parts[1])) { broken.append("\(page):\(line): \(target): no anchor in \(path)") }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    /// The slugs GitHub gives the example headings, as a check of ``anchors(in:)`` itself.
    @Test func anchorsAreMadeAsGitHubMakesThem() {
        let anchors = Self.anchors(in: "## The picture: `--html FILE`\n### Changes made from outside\n<a id=\"stopped\"></a>\n")
        #expect(anchors == ["the-picture---html-file", "changes-made-from-outside", "stopped"])
    }

    /// Each `[text](target)` outside code, with its line number.
    static func links(in text: String) -> [(line: Int, target: String)] {
        var found: [(Int, String)] = []
        var fenced = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { fenced.toggle() }
            if fenced || line.hasPrefix("    ") { continue }
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            // (Regex is slow in a debug build: it looks only where there may be a link.)
            guard prose.contains("](") else { continue }
            for match in prose.matches(of: /\]\(([^)\s]+)\)/) { found.append((index + 1, String(match.1))) }
        }
        return found
    }

    /// The anchors of a page: its headings as GitHub slugs them (lower case, punctuation but `-`
    /// and `_` dropped, spaces to `-`), and every `<a id="…">`.
    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") {
                let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                anchors.insert(String(title.compactMap { character -> Character? in
                    if character == " " { return "-" }
                    return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
                }))
            }
            guard line.contains("<a id=") else { continue }
            for match in line.matches(of: /<a id="([^"]+)">/) { anchors.insert(String(match.1)) }
        }
        return anchors
    }

    /// `docs/../examples/x` as `examples/x`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", !parts.isEmpty { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }
}
