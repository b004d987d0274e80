import Testing
@testable import SuperviseConfig

/// `--suspended-memory` and `suspended-memory`: bytes, or K, M, G in powers of 1024.
@Suite(.timeLimit(.minutes(5))) struct MemorySizeTests {
    @Test(arguments: [("0", UInt64(0)), ("4096", 4096), ("1K", 1024), ("512M", 512 << 20), ("2G", 2 << 30),
                      ("3g", 3 << 30), ("7k", 7 << 10)])
    func sizesAreBytesOrPowersOf1024(text: String, bytes: UInt64) throws {
        #expect(try MemorySize.parse(text) == bytes)
    }

    @Test(arguments: ["", "M", "1.5G", "-1", "1T", "1 M", "1MB", "99999999999999999999", "17179869184G"])
    func anythingElseIsOneLineSayingWhatIsExpected(text: String) {
        #expect(throws: UsageError.self) { try MemorySize.parse(text) }
        do {
            _ = try MemorySize.parse(text)
        } catch {
            #expect(error.message.hasSuffix("expected bytes, or a whole number with K, M or G (powers of 1024), e.g. 512M"))
        }
    }
}
