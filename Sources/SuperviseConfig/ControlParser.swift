import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem
/// Reads control commands, one line of standard input at a time.
///
/// Words are separated by spaces or tabs. A line that is blank or whose first
/// word starts with `#` is ignored, and so is a trailing comment: any word
/// starting with `#` and the rest of the line after it, except in the TEXT of
/// `event NAME KIND [TEXT]`, which is the rest of the line verbatim (so an
/// event text may contain `#`). Commands and states are lowercase.
public enum ControlParser {
    /// The states `wait` accepts.
    public static let waitableStates: [ChildState] = [.active, .background, .suspended, .exited, .notRunning]

    /// How long `wait` waits when no `timeout=` is given.
    public static let defaultWaitTimeout: Duration = .seconds(30)

    /// The longest `KIND TEXT` of an event, so that the protocol line
    /// `event SEQ KIND TEXT\n` fits in 1024 bytes with any SEQ.
    public static let maxEventBytes = 1024 - "event ".utf8.count - 20 - " ".utf8.count - "\n".utf8.count

    public static let commandNames = ["background", "foreground", "event", "terminate", "status", "wait", "sleep",
                               "signal", "start", "restart", "log-level", "version", "schedules", "run-task"]

    /// The levels `log-level` accepts, least important first (swift-log's).
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    static let kindCharacters = "._:-"

    /// The command on `line` (without its newline; a trailing CR is ignored),
    /// `nil` for a blank or comment line, or an error that says what is wrong with and
    /// without quoting the line.
    public static func parse(_ line: String) throws(ControlLineError) -> ControlCommand? {
        var words = Words(line)
        guard let name = words.next() else { return nil }
        /// What is wrong, then (where the line may be quoted) the word at fault and a near miss,
        /// then what is expected.
        func fail(_ problem: String, _ expected: String, quoting word: Substring? = nil,
                  suggestion: String? = nil) -> ControlLineError {
            let quoted = word.map { " '\(ControlText.excerpt($0))'" } ?? ""
            let nearMiss = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            return ControlLineError(line: line, detail: "\(problem)\(quoted)\(nearMiss): \(expected)",
                                    problem: "\(problem): \(expected)")
        }
        /// A value its own parser refused (a duration, a signal): its error quotes the value.
        func fail(_ problem: String, _ expected: String, because error: UsageError,
                  detailPrefix: String = "") -> ControlLineError {
            ControlLineError(line: line, detail: detailPrefix + error.message, problem: "\(problem): \(expected)")
        }
        func unexpected(_ word: Substring, _ expected: String) -> ControlLineError {
            ControlLineError(line: line, detail: "unexpected '\(ControlText.excerpt(word))': \(expected)",
                             problem: "unexpected word: \(expected)")
        }
        switch name {
        case "background", "foreground", "terminate", "start", "restart":
            let target = words.next().map(target(named:)) ?? .unnamed
            if let extra = words.next() { throw unexpected(extra, "expected \(name) [NAME]") }
            switch name {
            case "background": return .background(target)
            case "foreground": return .foreground(target)
            case "start": return .start(target)
            case "restart": return .restart(target)
            default: return .terminate(target)
            }
        case "event":
            guard let child = words.next() else {
                throw fail("missing NAME", "expected event NAME KIND [TEXT] (NAME may be all)")
            }
            guard let kind = words.next() else {
                throw fail("missing KIND", "expected event NAME KIND [TEXT]")
            }
            guard ControlText.isToken(kind, extra: kindCharacters) else {
                throw fail("invalid KIND", "expected letters, digits and . _ : -", quoting: kind)
            }
            let text = ControlText.trimmed(words.rest)
            guard kind.utf8.count + 1 + text.utf8.count <= maxEventBytes else {
                throw fail("event KIND and TEXT are too long", "at most \(maxEventBytes) bytes")
            }
            return .event(target(named: child), kind: String(kind), text: text.isEmpty ? nil : text)
        case "status", "version", "schedules":
            if let extra = words.next() { throw unexpected(extra, "\(name) takes no arguments") }
            return name == "status" ? .status : name == "version" ? .version : .schedules
        case "run-task":
            let usage = "expected run-task NAME ID (ctl schedules lists them)"
            guard let child = words.next() else { throw fail("missing NAME", usage) }
            guard let idWord = words.next() else { throw fail("missing ID", usage) }
            if let extra = words.next() { throw unexpected(extra, usage) }
            guard let id = TaskID(idWord) else {
                throw fail("invalid ID", "expected 1 to 64 of letters, digits, '.', '_' and '-'", quoting: idWord)
            }
            return .runTask(target(named: child), id: id)
        case "signal":
            let usage = "expected signal NAME SIG [main|group|tree] (NAME may be all)"
            guard let child = words.next() else { throw fail("missing NAME", usage) }
            guard let signalWord = words.next() else { throw fail("missing SIG", usage) }
            let recipients = words.next()
            if let extra = words.next() { throw unexpected(extra, usage) }
            let signal: Int32
            do throws(UsageError) {
                signal = try SignalName.parseAny(String(signalWord))
            } catch {
                throw fail("unknown SIG", usage, because: error)
            }
            guard let to = SignalTarget(rawValue: recipients.map(String.init) ?? "main") else {
                throw fail("unknown target", usage, quoting: recipients)
            }
            return .signal(target(named: child), signal: signal, to: to)
        case "log-level":
            let usage = "expected log-level LEVEL, LEVEL one of \(logLevels.joined(separator: ", "))"
            guard let level = words.next() else { throw fail("missing LEVEL", usage) }
            if let extra = words.next() { throw unexpected(extra, usage) }
            guard logLevels.contains(String(level)) else { throw fail("unknown level", usage, quoting: level) }
            return .logLevel(String(level))
        case "wait":
            let usage = "expected wait STATE [NAME] [timeout=DURATION]"
            guard let stateWord = words.next() else {
                throw fail("missing STATE", usage)
            }
            guard let state = waitableStates.first(where: { $0.rawValue == stateWord }) else {
                throw fail("unknown state", "expected active, background, suspended, exited or not-running",
                           quoting: stateWord,
                           suggestion: ControlText.closest(to: String(stateWord), in: waitableStates.map(\.rawValue)))
            }
            var target = ControlTarget.unnamed
            var timeout: Duration?
            while let word = words.next() {
                if let equals = word.firstIndex(of: "=") {
                    let key = word[..<equals], value = word[word.index(after: equals)...]
                    guard key == "timeout" else {
                        throw fail("unknown option", usage, quoting: key)
                    }
                    guard timeout == nil else {
                        throw fail("timeout given twice", usage)
                    }
                    do throws(UsageError) {
                        timeout = try DurationParser.parse(String(value))
                    } catch {
                        throw fail("invalid timeout", DurationParser.acceptedForms, because: error, detailPrefix: "timeout: ")
                    }
                } else {
                    guard target == .unnamed, timeout == nil else {
                        throw unexpected(word, usage)
                    }
                    target = Self.target(named: word)
                }
            }
            return .wait(state: state, target: target, timeout: timeout ?? defaultWaitTimeout)
        case "sleep":
            guard let value = words.next() else { throw fail("missing DURATION", "expected sleep DURATION") }
            if let extra = words.next() { throw unexpected(extra, "expected sleep DURATION") }
            do throws(UsageError) {
                return .sleep(try DurationParser.parse(String(value)))
            } catch {
                throw fail("invalid DURATION", DurationParser.acceptedForms, because: error)
            }
        default:
            throw fail("unknown command", "expected background, foreground, event, terminate, status, wait, sleep, "
                       + "signal, start, restart, log-level, version, schedules or run-task",
                       quoting: name, suggestion: ControlText.closest(to: String(name), in: commandNames))
        }
    }

    private static func target(named word: Substring) -> ControlTarget {
        word == "all" ? .all : .named(String(word))
    }
}

/// The words of a command line, read one at a time; a word starting with `#`
/// ends the line.
private struct Words {
    private var remaining: Substring

    init(_ line: String) {
        remaining = Substring(line)
    }

    /// What is left after the words read so far, verbatim.
    var rest: Substring { remaining }

    /// The next word, or `nil` at the end of the line or at a comment.
    mutating func next() -> Substring? {
        remaining = remaining.drop(while: ControlText.isSpace)
        guard !remaining.isEmpty, !remaining.hasPrefix("#") else { return nil }
        let end = remaining.firstIndex(where: ControlText.isSpace) ?? remaining.endIndex
        defer { remaining = remaining[end...] }
        return remaining[..<end]
    }
}
