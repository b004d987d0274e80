import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem
import SuperviseProtocol

/// Reads control commands from standard input, a line at a time, and holds them
/// while a `wait` or `sleep` is in force.
///
/// A terminal or pipe is waited on in the event loop; a regular file or /dev/null
/// (which epoll refuses) is read directly whenever the reader is not held. Either way
/// stdin is read only once every line read before has run, one chunk at a time, and a
/// line over ``maxLineLength`` is skipped without being stored: what is buffered stays bounded.
final class CommandReader {
    /// One line of stdin, numbered from 1.
    struct Line {
        let number: Int
        /// The line, or for a line over ``maxLineLength`` its first bytes.
        let text: String
        let isTooLong: Bool
    }

    /// The longest command line accepted, newline included.
    static let maxLineLength = 64 * 1024
    /// How much of stdin one read takes.
    static let chunkSize = 16 * 1024

    let fd: Int32
    /// What a command that can't be run as written does: decided once, by whether stdin is a terminal.
    let mistakes: CommandMistakes
    /// Whether the log may quote a line: never one typed at a terminal.
    let echo: CommandEcho
    private var loop: EventLoop?
    private(set) var pollable = false
    private(set) var reachedEOF = false
    private var splitter = LineSplitter(maxLineLength: CommandReader.maxLineLength)
    private var chunk = [UInt8](repeating: 0, count: CommandReader.chunkSize)
    private var lines: [Line] = []
    private var nextIndex = 0
    private var lineNumber = 0
    /// What keeps the next command from running.
    var hold: CommandHold?

    init(fd: Int32, keepGoing: Bool) {
        self.fd = fd
        let fromTerminal = Descriptor.isTerminal(fd)
        mistakes = CommandMistakes(fromTerminal: fromTerminal, keepGoing: keepGoing)
        echo = CommandEcho(fromTerminal: fromTerminal)
    }

    /// Registers stdin in `loop` when it can be polled; `onReadable` runs when it has data.
    func attach(to loop: EventLoop, onReadable: @escaping () -> Void) {
        pollable = loop.add(fd) { _ in onReadable() }
        if pollable { self.loop = loop }
    }

    /// Whether a command may still run: stdin has not ended (nor was stopped), or lines read
    /// before its end are still to run.
    var mayRunMore: Bool { !reachedEOF || nextIndex < lines.count }

    /// Whether stdin must be read without waiting for readiness (regular file, /dev/null).
    var needsDirectRead: Bool { !pollable && !reachedEOF && hold == nil && nextIndex == lines.count }

    /// The instant a hold ends by itself, if any.
    var holdDeadline: Instant? { hold?.deadline }

    /// Reads what stdin has now (one chunk), splitting it into lines. Stdin is not watched
    /// again until those lines have all run. Its flags are the shell's and stay as they are: a
    /// polled stdin is read only as far as it is ready, a regular file or /dev/null as it comes.
    func readAvailable() {
        let read = pollable ? Descriptor.readReady(_:into:) : Descriptor.read(_:into:)
        switch chunk.withUnsafeMutableBytes({ read(fd, $0) }) {
        case .bytes(let count):
            chunk.withUnsafeBytes { splitter.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            while let line = splitter.next() { add(line) }
        case .endOfFile, .failed:
            // A pipe at its end stays readable: stop watching it, or the loop would spin.
            reachedEOF = true
            loop?.remove(fd)
            while let line = splitter.finish() { add(line) }
        case .wouldBlock:
            break
        }
        if nextIndex < lines.count { loop?.modify(fd, events: 0) }
    }

    private func add(_ line: LineSplitter.Line) {
        lineNumber += 1
        switch line {
        case .line(let bytes):
            lines.append(Line(number: lineNumber, text: String(decoding: bytes, as: UTF8.self), isTooLong: false))
        case .tooLong(let prefix):
            lines.append(Line(number: lineNumber, text: String(decoding: prefix, as: UTF8.self), isTooLong: true))
        }
    }

    /// Reads and runs nothing more: drops the lines not run yet and any hold, and stops watching stdin.
    func stop() {
        reachedEOF = true
        loop?.remove(fd)
        lines.removeAll()
        nextIndex = 0
        hold = nil
    }

    /// The next line to run, unless a hold is in force or none is buffered.
    func nextLine() -> Line? {
        guard hold == nil, nextIndex < lines.count else { return nil }
        defer {
            nextIndex += 1
            if nextIndex == lines.count {
                lines.removeAll(keepingCapacity: true)
                nextIndex = 0
                loop?.modify(fd, events: EventLoop.readable)
            }
        }
        return lines[nextIndex]
    }
}
