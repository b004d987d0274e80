import Testing
import SuperviseLifecycle

@Suite struct PressureStallTests {
    @Test func bothLinesOfAMemoryFileAreRead() throws {
        let text = """
            some avg10=12.50 avg60=3.04 avg300=0.71 total=8063067418
            full avg10=1.00 avg60=0.00 avg300=0.00 total=42

            """
        let stall = try #require(PressureStall(text: text))
        #expect(stall.some == .init(avg10: 12.5, avg60: 3.04, avg300: 0.71, total: .microseconds(8_063_067_418)))
        #expect(stall.full == .init(avg10: 1, avg60: 0, avg300: 0, total: .microseconds(42)))
    }

    @Test func anOldCPUFileWithoutAFullLineHasNone() throws {
        let stall = try #require(PressureStall(text: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"))
        #expect(stall.full == nil)
    }

    @Test(arguments: [
        "", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", "some avg10=x avg60=0 avg300=0 total=0",
        "some avg10=nan avg60=0 avg300=0 total=0", "some avg10=0 avg60=0 avg300=0 total=-1", "some avg10",
    ])
    func textWithoutAWellFormedSomeLineIsRefused(text: String) {
        #expect(PressureStall(text: text) == nil)
    }

    @Test func aTotalPastInt64Saturates() throws {
        let stall = try #require(PressureStall(text: "some avg10=0 avg60=0 avg300=0 total=18446744073709551615"))
        #expect(stall.some.total == .microseconds(Int64.max))
    }
}
