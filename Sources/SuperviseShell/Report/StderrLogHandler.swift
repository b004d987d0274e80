import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import Logging

/// The supervisor's own log format on stderr.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `supervise: worker: suspended`
    case text
    /// One JSON object a line: `{"t_ms":…,"level":"info","child":"worker","message":"suspended"}`
    case json
}

/// Writes each log line to stderr with one `write(2)`, in text or JSON.
public struct StderrLogHandler: LogHandler {
    /// Shared by every copy of the handler (each child's logger has one), so that `log-level`
    /// changes the level of them all.
    private let level: LevelSetting
    public var logLevel: Logger.Level {
        get { level.value }
        nonmutating set { level.value = newValue }
    }
    public var metadata: Logger.Metadata = [:]
    let format: LogFormat
    let origin: Instant
    /// Stamp every line with the wall-clock time (`--log-time`).
    let stampsTime: Bool

    public init(format: LogFormat, level: Logger.Level, origin: Instant = MonotonicClock.now(),
                stampsTime: Bool = false) {
        self.format = format
        self.level = LevelSetting(level)
        self.origin = origin
        self.stampsTime = stampsTime
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let now = MonotonicClock.now()
        let line = line(level: event.level, message: "\(event.message)", metadata: event.metadata,
                        at: now, wallTime: stampsTime ? WallClock.now() : nil)
        Descriptor.writeAll(Descriptor.standardError, line)
    }

    /// The level of a handler and its copies. Unchecked: the supervisor logs from one thread.
    private final class LevelSetting: @unchecked Sendable {
        var value: Logger.Level
        init(_ value: Logger.Level) { self.value = value }
    }

    /// The line for one message, newline included. `wallTime`, when given, leads the line:
    /// `2026-03-01T09:05:07.042Z supervise: …` in text, a `"time"` member first in JSON.
    func line(level: Logger.Level, message: String, metadata extra: Logger.Metadata?,
              at now: Instant, wallTime: WallTime?) -> String {
        var merged = metadata
        if let extra { merged.merge(extra) { $1 } }
        let child = merged.removeValue(forKey: "child").map { "\($0)" }
        var line: String
        switch format {
        case .text:
            line = wallTime.map { $0.rfc3339 + " " } ?? ""
            line += "supervise: "
            if level >= .error { line += "error: " } else if level == .warning { line += "warning: " }
            if let child { line += ControlEscapes.escaped(child) + ": " }
            line += ControlEscapes.escaped(message)
        case .json:
            var members: [(String, JSONValue)] = wallTime.map { [("time", .string($0.rfc3339))] } ?? []
            members.append(("t_ms", .double(now.milliseconds(since: origin))))
            members.append(("level", .string(level.rawValue)))
            if let child { members.append(("child", .string(child))) }
            members.append(("message", .string(message)))
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) { members.append((key, .string("\(value)"))) }
            line = JSONValue.object(members).serialized()
        }
        return line + "\n"
    }
}
