import Testing
@testable import SuperviseSystem

/// `--log-time` stamps: RFC 3339 UTC with milliseconds, computed without the C library's tables.
@Suite(.timeLimit(.minutes(5))) struct WallTimeTests {
    @Test(arguments: [
        (Int64(0), Int32(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400, 5_000_000, "2000-02-29T00:00:00.005Z"),  // a leap day of a year divisible by 400
        (4_107_542_399, 0, "2100-02-28T23:59:59.000Z"),  // 2100 is not a leap year:
        (4_107_542_400, 0, "2100-03-01T00:00:00.000Z"),  // the next second is in March
        (1_772_355_907, 42_999_999, "2026-03-01T09:05:07.042Z"),  // milliseconds are cut, not rounded
        (1_798_761_599, 999_999_999, "2026-12-31T23:59:59.999Z"),
        (-1, 0, "1969-12-31T23:59:59.000Z"),  // before the epoch, days round down
    ])
    func formatsRFC3339InUTC(seconds: Int64, nanoseconds: Int32, expected: String) {
        #expect(WallTime(seconds: seconds, nanoseconds: nanoseconds).rfc3339 == expected)
    }

    @Test func theClockReadsThisCentury() {
        let now = WallClock.now()
        #expect(now.rfc3339.hasPrefix("20"), "\(now.rfc3339)")
        #expect((0..<1_000_000_000).contains(now.nanoseconds))
    }
}
