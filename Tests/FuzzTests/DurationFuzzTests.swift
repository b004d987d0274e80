import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem
import SuperviseTestSupport

/// `DurationParser` against an independent reference, on generated and mutated inputs.
@Suite(.computing, .timeLimit(FuzzRun.timeLimit)) struct DurationFuzzTests {
    @Test func generatedDurationsParseToTheReferenceNanoseconds() {
        var run = FuzzRun("durations-generated", defaultIterations: 20000)
        for _ in 0..<run.iterations {
            let text = Self.generate(&run.random)
            check(text)
        }
    }

    @Test func mutatedDurationsAgreeWithTheReference() {
        var run = FuzzRun("durations-mutated", defaultIterations: 3000)
        let corpus = Corpus.lines("durations")
        for _ in 0..<run.iterations {
            let bytes = Mutator.mutate(corpus.randomElement(using: &run.random)!,
                                       splicingFrom: corpus.randomElement(using: &run.random)!, &run.random)
            check(String(decoding: bytes, as: UTF8.self))
        }
    }

    private func check(_ text: String) {
        let expected = ReferenceDuration.nanoseconds(text)
        do {
            let duration = try DurationParser.parse(text)
            #expect(expected.map { Duration.nanoseconds($0) } == duration, "input \(ErrorShape.show(Array(text.utf8)))")
        } catch {
            #expect(expected == nil, "refused \(ErrorShape.show(Array(text.utf8))): \(error.message)")
            #expect(ErrorShape.problem(error.message) == nil, "\(ErrorShape.problem(error.message) ?? "")")
        }
    }

    /// A well-formed duration: digits, maybe a fraction, maybe a unit, maybe spaces around.
    static func generate(_ random: inout SeededGenerator) -> String {
        func digits(_ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &random)).map { _ in "0123456789".randomElement(using: &random)! })
        }
        var number = digits(0...(random.oneIn(4) ? 22 : 6))
        if number.isEmpty || random.oneIn(2) {
            number += "." + digits(number.isEmpty ? 1...18 : 0...18)
        }
        let unit = ["", "us", "ms", "s", "m", "h"].randomElement(using: &random)!
        let space = { (random: inout SeededGenerator) in [" ", "\t", "", ""].randomElement(using: &random)! }
        return space(&random) + number + unit + space(&random)
    }
}

/// An independent, exact reading of the documented duration grammar, in 128-bit arithmetic:
/// `digits[.digits][unit]`, fraction digits after the 12th ignored, truncated to the nanosecond.
enum ReferenceDuration {
    static func nanoseconds(_ text: String) -> Int64? {
        var scalars = Array(text.unicodeScalars)
        let blank: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n"]
        while let first = scalars.first, blank.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, blank.contains(last) { scalars.removeLast() }
        var unit: UInt128 = 1_000_000_000
        for (suffix, nanoseconds) in [("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000),
                                      ("m", 60_000_000_000), ("h", 3_600_000_000_000)] as [(String, UInt128)]
        where scalars.reversed().starts(with: suffix.unicodeScalars.reversed()) {
            scalars.removeLast(suffix.unicodeScalars.count)
            unit = nanoseconds
            break
        }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : []
        let isDigit = { (scalar: Unicode.Scalar) in ("0"..."9").contains(scalar) }
        guard whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit), !(whole.isEmpty && fraction.isEmpty) else {
            return nil
        }
        let limit = UInt128(Int64.max)
        var wholeValue: UInt128 = 0
        for digit in whole {
            wholeValue = wholeValue * 10 + UInt128(digit.value - 48)
            if wholeValue > limit { return nil }
        }
        var fractionValue: UInt128 = 0, scale: UInt128 = 1
        for digit in fraction.prefix(12) {
            fractionValue = fractionValue * 10 + UInt128(digit.value - 48)
            scale *= 10
        }
        let total = wholeValue * unit + unit * fractionValue / scale
        return total <= limit ? Int64(total) : nil
    }
}
