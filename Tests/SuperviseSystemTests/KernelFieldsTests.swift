import Foundation
import Glibc
import Testing
@testable import SuperviseSystem

/// The kernel's files read in place: fields without copies, a file with as few reads as it takes.
@Suite(.timeLimit(.minutes(1))) struct KernelFieldsTests {
    private func fields(of text: String) -> [String] {
        KernelFields.reading(text) { bytes in
            var fields = KernelFields(bytes)
            var found: [String] = []
            while let field = fields.next() { found.append(String(decoding: field, as: UTF8.self)) }
            return found
        }
    }

    @Test func fieldsAreSplitAtRunsOfSpacesAndNewlines() {
        #expect(fields(of: "  12 0  345\n") == ["12", "0", "345"])
        #expect(fields(of: "1\n2\n\n3") == ["1", "2", "3"])
        #expect(fields(of: " \n ").isEmpty)
        #expect(fields(of: "ü 7").first == "ü")
    }

    @Test func decimalsAreDigitsThatFit() {
        KernelFields.reading("18446744073709551615 18446744073709551616 -1 9x 42") { bytes in
            var fields = KernelFields(bytes)
            let read = (0..<6).map { _ in fields.nextDecimal() }
            #expect(read == [UInt64.max, nil, nil, nil, 42, nil])
        }
    }

    @Test func skippingPastTheLastFieldSaysSo() {
        KernelFields.reading("1000 0 294\n") { bytes in
            var fields = KernelFields(bytes)
            let skipped = fields.skip(2)
            let third = fields.nextDecimal()
            let skippedPastTheEnd = fields.skip(1)
            #expect(skipped && third == 294 && !skippedPastTheEnd)
        }
    }

    /// A file read from its start, whole, whatever its size against the 4,096-byte chunks: a
    /// short file in one read, a longer one until a read comes back short.
    @Test(arguments: [0, 1, 310, 4_095, 4_096, 4_097, 8_192, 10_000])
    func aFileIsReadWhole(size: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-fields-\(getpid())-\(size)").path
        defer { unlink(path) }
        let text = String((0..<size).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        _ = lseek(fd, 7, SEEK_SET)  // the position is not where it reads from
        #expect(try Descriptor.readFromStart(fd).get() == text)
    }

    @Test func theTestProcesssOwnStatIsReadAndParsed() throws {
        let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let stat = try #require(ProcFS.parseStat(try Descriptor.readFromStart(fd).get()))
        #expect(stat.parent == getppid() && stat.threads >= 1 && stat.startTicks > 0)
    }
}
