import Foundation
import Testing
@testable import supervise
import SuperviseReport
import SuperviseShell
import SuperviseTestSupport

/// `supervise report`: JSON read back (`JSONReader`) and the page drawn from it (`HtmlReport`),
/// on mutated real reports (`Corpus/reports/`, written by real runs): numbers made extreme
/// (1e300, -1, 2^63, NaN-like tokens), deep nesting, long strings, invalid UTF-8, and the
/// byte mutations every parser gets. Each input is a page of bounded size or one line saying
/// why not (exit 2); each case has a time limit, so a spin fails the run with its seed.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct ReportFuzzTests {
    /// Numbers no run writes, and tokens that only look like numbers.
    static let extremeNumbers = ["1e300", "-1e300", "1.7976931348623157e308", "1e309", "-1", "0", "-0", "1e-400",
                                 "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                                 "18446744073709551616", "4294967296", "99999999999999999999999999999", "0.0001",
                                 "NaN", "Infinity", "-Infinity", "nan", "00", "1.", ".5", "1e", "+1", "0x10"]

    /// How long one case may take, in a debug build on a loaded machine (a few ms is usual).
    static let caseLimit = Duration.seconds(20)

    @Test func mutatedReportsDrawOrFailWithOneLine() throws {
        var run = FuzzRun("report", defaultIterations: 300)
        let corpus = Corpus.documents("reports")
        try #require(corpus.count >= 2, "the corpus of real reports")
        let watchdog = CaseWatchdog(limit: Self.caseLimit)
        defer { watchdog.finish() }
        let directory = TemporaryDirectory()
        for index in 0..<run.iterations {
            let input = Self.mutate(corpus.randomElement(using: &run.random)!,
                                    splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            let viaCommandLine = index % 25 == 0
            watchdog.run("case \(index) (seed \(run.seed)) \(ErrorShape.show(input))") {
                Self.check(input)
                if viaCommandLine { Self.checkCommandLine(input, in: directory.path) }
            }
        }
    }

    /// A page no larger than a multiple of the input, or one bounded line.
    static func check(_ input: [UInt8]) {
        let report: JSONValue
        do {
            report = try JSONReader.parse(input)
        } catch {
            #expect(ErrorShape.problem(error.message) == nil, "\(ErrorShape.show(input)): \(error.message)")
            return
        }
        do {
            let page = try HtmlReport.page(for: report)
            #expect(page.utf8.count <= 200 * input.count + 200_000,
                    "\(ErrorShape.show(input)): a page of \(page.utf8.count) bytes")
        } catch {
            #expect(ErrorShape.problem(error.message) == nil, "\(ErrorShape.show(input)): \(error.message)")
        }
    }

    /// `supervise report FILE --html OUT` in process, as main.swift runs it: 0, or 2 with one line.
    static func checkCommandLine(_ input: [UInt8], in directory: String) {
        let report = directory + "/report.json", page = directory + "/page.html"
        #expect(FileManager.default.createFile(atPath: report, contents: Data(input)))
        do {
            var command = try ReportCommand.parseAsRoot([report, "--html", page])
            try command.run()
            #expect(FileManager.default.fileExists(atPath: page))
        } catch {
            #expect(!ReportCommand.exitCode(for: error).isSuccess)
            let line = oneLine(ReportCommand.message(for: error))
            #expect(ErrorShape.problem(line) == nil, "\(ErrorShape.show(input)): \(line)")
        }
        try? FileManager.default.removeItem(atPath: page)
    }

    /// One to three changes: a number made extreme, a value nested deep, a string made long or
    /// given invalid UTF-8, or the byte mutations of ``Mutator``.
    static func mutate(_ input: [UInt8], splicingFrom other: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let numbers = numberRanges(in: bytes), strings = stringRanges(in: bytes)
            switch Int.random(in: 0..<6, using: &random) {
            case 0...1 where !numbers.isEmpty:
                bytes.replaceSubrange(numbers.randomElement(using: &random)!,
                                      with: Array(extremeNumbers.randomElement(using: &random)!.utf8))
            case 2 where !numbers.isEmpty:
                let depth = [100, 255, 256, 257, 5_000].randomElement(using: &random)!
                let range = numbers.randomElement(using: &random)!
                bytes.replaceSubrange(range, with: Array(repeating: UInt8(ascii: "["), count: depth) + bytes[range]
                                      + Array(repeating: UInt8(ascii: "]"), count: depth))
            case 3 where !strings.isEmpty:
                let piece = [Array("a".utf8), Array("\\u00e9".utf8), Array("\\ud800".utf8), Array("<&\"".utf8)]
                    .randomElement(using: &random)!
                let count = [1_000, 100_000].randomElement(using: &random)!
                bytes.replaceSubrange(strings.randomElement(using: &random)!,
                                      with: Mutator.repeated(piece, count / piece.count))
            case 4 where !strings.isEmpty:
                let at = strings.randomElement(using: &random)!.lowerBound
                bytes.insert(contentsOf: [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xC3]].randomElement(using: &random)!, at: at)
            default:
                bytes = Mutator.mutate(bytes, splicingFrom: other, &random)
            }
        }
        return bytes
    }

    /// Where the numbers are: runs of number bytes after `:`, `,` or `[` (outside strings, as a
    /// report is written: no whitespace).
    static func numberRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 1
        while index < bytes.count {
            if ":,[".utf8.contains(bytes[index - 1]), "-0123456789".utf8.contains(bytes[index]) {
                let start = index
                while index < bytes.count, "-+.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
                ranges.append(start..<index)
            }
            index += 1
        }
        return ranges
    }

    /// The contents of the strings (between the quotes), escapes and all.
    static func stringRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0, start: Int?
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\") where start != nil: index += 1
            case UInt8(ascii: "\""):
                if let opened = start { ranges.append(opened..<index); start = nil } else { start = index + 1 }
            default: break
            }
            index += 1
        }
        return ranges
    }
}
