import Logging
import Testing
@testable import SuperviseLifecycle
@testable import SuperviseShell
@testable import SuperviseSystem

/// The lines `StderrLogHandler` writes, with and without `--log-time`.
@Suite(.timeLimit(.minutes(5))) struct LogLineTests {
    static let origin = Instant(nanoseconds: 1_000_000_000)
    static let now = Instant(nanoseconds: 1_485_941_000)
    static let wallTime = WallTime(seconds: 1_772_355_907, nanoseconds: 42_000_000)

    func line(_ format: LogFormat, level: Logger.Level = .info, child: String? = "worker",
              wallTime: WallTime? = nil) -> String {
        var handler = StderrLogHandler(format: format, level: .trace, origin: Self.origin)
        if let child { handler[metadataKey: "child"] = .string(child) }
        return handler.line(level: level, message: "suspended", metadata: nil, at: Self.now, wallTime: wallTime)
    }

    @Test func textWithoutTime() {
        #expect(line(.text) == "supervise: worker: suspended\n")
        #expect(line(.text, level: .warning, child: nil) == "supervise: warning: suspended\n")
    }

    @Test func textWithTimeBeginsWithIt() {
        #expect(line(.text, wallTime: Self.wallTime) == "2026-03-01T09:05:07.042Z supervise: worker: suspended\n")
        #expect(line(.text, level: .error, wallTime: Self.wallTime)
            == "2026-03-01T09:05:07.042Z supervise: error: worker: suspended\n")
    }

    @Test func jsonWithoutTime() {
        #expect(line(.json) == #"{"t_ms":485.941,"level":"info","child":"worker","message":"suspended"}"# + "\n")
    }

    @Test func jsonWithTimeHasItFirst() {
        #expect(line(.json, wallTime: Self.wallTime)
            == #"{"time":"2026-03-01T09:05:07.042Z","t_ms":485.941,"level":"info","child":"worker","message":"suspended"}"# + "\n")
    }

    @Test func metadataOfTheEventJoinsTheHandlers() {
        let handler = StderrLogHandler(format: .json, level: .trace, origin: Self.origin)
        let text = handler.line(level: .notice, message: "m", metadata: ["child": "api", "pid": "7"], at: Self.now, wallTime: nil)
        #expect(text == #"{"t_ms":485.941,"level":"notice","child":"api","message":"m","pid":"7"}"# + "\n")
    }
}
