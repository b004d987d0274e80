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
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let format: LogFormat
    let origin: Instant

    public init(format: LogFormat, level: Logger.Level, origin: Instant = MonotonicClock.now()) {
        self.format = format
        self.logLevel = level
        self.origin = origin
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let child = merged.removeValue(forKey: "child").map { "\($0)" }
        var line: String
        switch format {
        case .text:
            line = "supervise: "
            if event.level >= .error { line += "error: " } else if event.level == .warning { line += "warning: " }
            if let child { line += ControlEscapes.escaped(child) + ": " }
            line += ControlEscapes.escaped("\(event.message)")
        case .json:
            var members: [(String, JSONValue)] = [
                ("t_ms", .double(MonotonicClock.now().milliseconds(since: origin))),
                ("level", .string(event.level.rawValue)),
            ]
            if let child { members.append(("child", .string(child))) }
            members.append(("message", .string("\(event.message)")))
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) { members.append((key, .string("\(value)"))) }
            line = JSONValue.object(members).serialized()
        }
        line += "\n"
        Descriptor.writeAll(Descriptor.standardError, line)
    }
}
