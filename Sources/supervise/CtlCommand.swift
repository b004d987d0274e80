import ArgumentParser
import SuperviseConfig
import SuperviseLifecycle
import SuperviseProtocol
import SuperviseShell
import SuperviseSystem

/// `supervise ctl [--socket PATH] COMMAND [ARG...]`: sends one command to a running supervisor
/// and prints its answer (docs/cli.md, "Control from outside").
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise ctl",
        abstract: "Send one command to a supervisor started with --socket.",
        usage: "supervise ctl [--socket PATH] [--format FORMAT] [--timeout DURATION] COMMAND [ARG...]",
        discussion: """
            COMMAND is any command supervise reads on stdin (see 'supervise --help'):
            background, foreground, event, terminate, status, wait, sleep, signal,
            start, restart, log-level, version. The answer is printed on stdout;
            a refusal is one error line on stderr. A wait holds until it is over.

            The socket is --socket PATH, or else $SUPERVISE_SOCKET. The answer must
            come within --timeout (10s), beyond a wait's or sleep's own time: a
            stopped or deaf supervisor is an exit 69, not a hang.

            EXIT STATUS
              0     done (a wait: the state was reached)
              2     refused (no such child, wrong state, not allowed), or not a
                    command as written
              123   a wait timed out, could not be satisfied, or its supervisor
                    exited meanwhile
              69    no supervisor answers at the socket (within --timeout)
            """)

    /// Exit status when no supervisor answers (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69

    // Long names spelled out, as in SuperviseCommand: derived ones cost start-up time.
    @Option(name: .customLong("socket"), help: ArgumentHelp("The supervisor's control socket.", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("format"), help: ArgumentHelp("status as json lines or a table. (default: table on a terminal)",
                               valueName: "format"))
    var format: CtlFormat?

    @Option(name: .customLong("timeout"),
            help: ArgumentHelp("How long the answer may take, beyond a wait's or sleep's own time. (default: 10s)",
                               valueName: "duration"))
    var timeout: String?

    /// ctl's options that take a value, as a user may put them after the command by mistake.
    static let ownOptions = ["--socket", "--format", "--timeout"]

    /// How long a supervisor may take to answer when `--timeout` is not given.
    static let defaultTimeout: Duration = .seconds(10)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        // Every word from the first that is not an option of ctl's is the command's, --help too.
        if command.first == "--help" || command.first == "-h" { throw CleanExit.helpRequest(self) }
        if command.isEmpty { throw ValidationError("no command: as in 'supervise ctl --socket PATH status'") }
        if command.contains(where: { $0.contains("\n") || $0.contains("\r") }) {
            throw ValidationError("a command is one line: no line breaks in its arguments")
        }
        // `ctl status --format json`: ctl's own options go before the command, whose words are sent
        // as they are. Said only for a line the supervisor could not take anyway, so an event's
        // TEXT may still hold the word.
        let line = command.joined(separator: " ")
        if (try? ControlParser.parse(line)) == nil,
           let option = command.first(where: { word in Self.ownOptions.contains { word == $0 || word.hasPrefix($0 + "=") } }) {
            let name = option.split(separator: "=")[0]
            throw ValidationError("'\(name)' is an option of ctl: put it before the command, "
                + "as in 'supervise ctl \(name) \(name == "--format" ? "json" : "VALUE") \(command[0])'")
        }
        if socketPath == nil { throw ValidationError("no socket: give --socket PATH or set SUPERVISE_SOCKET") }
        _ = try answerTime()
    }

    /// `--timeout`, or the default.
    private func answerTime() throws -> Duration {
        guard let timeout else { return Self.defaultTimeout }
        do throws(UsageError) {
            return try DurationParser.parse(timeout)
        } catch {
            throw ValidationError("--timeout: \(error.message)")
        }
    }

    private var socketPath: String? {
        socket ?? CurrentProcess.environment.lazy.compactMap { entry in
            entry.hasPrefix("SUPERVISE_SOCKET=") ? String(entry.dropFirst("SUPERVISE_SOCKET=".count)) : nil
        }.first
    }

    mutating func run() throws {
        let path = socketPath!
        let line = command.joined(separator: " ")
        let parsed = try? ControlParser.parse(line)
        // A wait or a sleep holds the answer for its own time first (Instant sums saturate).
        let held: Duration = switch parsed {
        case .wait(_, _, let timeout)?: timeout
        case .sleep(let duration)?: duration
        default: .zero
        }
        let answerTime = try answerTime()
        let deadline = MonotonicClock.now() + held + answerTime
        let fd: Int32
        switch ControlSocketClient.connect(path, until: deadline) {
        case .success(let connected): fd = connected
        case .failure(.nobodyAnswers(.resourceTemporarilyUnavailable)):
            fail(noAnswer(path, answerTime), status: Self.unavailable)
        case .failure(.nobodyAnswers(let error)):
            fail("no supervisor answers at '\(path)': \(error.sentenceText)", status: Self.unavailable)
        case .failure(.notAllowed(let error)):
            fail("cannot connect to '\(path)': \(error.sentenceText)", status: 2)
        }
        ControlSocketClient.send(fd, line + "\n")
        guard let reply = Self.readReply(fd, until: deadline) else {
            fail(noAnswer(path, answerTime), status: Self.unavailable)
        }
        Descriptor.close(fd)
        let table = parsed == .status && (format ?? (Descriptor.isTerminal(Descriptor.standardOutput) ? .table : .json)) == .table
        let answer = reply.answer.filter { !$0.hasPrefix("note: ") }
        Descriptor.writeAll(Descriptor.standardOutput, table ? StatusTable.render(answer) : answer.map { $0 + "\n" }.joined())
        for note in reply.answer where note.hasPrefix("note: ") {
            Descriptor.writeAll(Descriptor.standardError, "supervise ctl: \(note)\n")
        }
        switch reply.outcome {
        case .ok?:
            CurrentProcess.exit(0)
        case .error(let code, let message)?:
            fail(message, status: code.exitStatus)
        case nil:
            if case .wait? = parsed { fail("the supervisor exited while the wait held", status: 123) }
            if case .sleep? = parsed { fail("the supervisor exited while the sleep held", status: 123) }
            fail("the supervisor closed the connection without an answer", status: Self.unavailable)
        }
    }

    private func noAnswer(_ path: String, _ answerTime: Duration) -> String {
        "no answer from the supervisor at '\(path)' within \(answerTime.formatted) (stopped, or not serving?)"
    }

    /// Every line until the supervisor closes the connection: the answer, then the outcome;
    /// `nil` when `deadline` passed first.
    private static func readReply(_ fd: Int32, until deadline: Instant) -> (answer: [String], outcome: ControlOutcome?)? {
        var splitter = LineSplitter(maxLineLength: 1024 * 1024)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var answer: [String] = []
        var outcome: ControlOutcome?
        func take(_ line: LineSplitter.Line) {
            guard case .line(let bytes) = line else { return }
            let text = String(decoding: bytes, as: UTF8.self)
            if let parsed = ControlOutcome.parse(text) { outcome = parsed } else { answer.append(text) }
        }
        while true {
            guard ControlSocketClient.waitReadable(fd, until: deadline) else { return nil }
            guard case .bytes(let count) = chunk.withUnsafeMutableBytes({ Descriptor.read(fd, into: $0) }) else { break }
            chunk.withUnsafeBytes { splitter.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            while let line = splitter.next() { take(line) }
        }
        while let line = splitter.finish() { take(line) }
        return (answer, outcome)
    }

    private func fail(_ message: String, status: Int32) -> Never {
        Descriptor.writeAll(Descriptor.standardError, "supervise ctl: error: \(ControlEscapes.escaped(message))\n")
        CurrentProcess.exit(status)
    }
}

/// How `ctl status` prints the children.
enum CtlFormat: String, CaseIterable, RawValueArgument {
    case json
    case table
}
