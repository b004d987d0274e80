#if canImport(Glibc)
import Glibc
#endif

/// Reads control commands from standard input, a line at a time, and holds them
/// while a `wait` or `sleep` is in force.
///
/// A terminal or pipe is waited on in the event loop; a regular file or /dev/null
/// (which epoll refuses) is read directly whenever the reader is not held.
final class CommandReader {
    /// What keeps the next command from running.
    enum Hold {
        case wait(state: ChildState, target: ControlTarget, deadline: Instant, line: Int, text: String)
        case sleep(until: Instant)
    }

    let fd: Int32
    private var loop: EventLoop?
    private(set) var pollable = false
    private(set) var reachedEOF = false
    private var partial: [UInt8] = []
    private var lines: [(number: Int, text: String)] = []
    private var nextIndex = 0
    private var lineNumber = 0
    var hold: Hold?

    init(fd: Int32) { self.fd = fd }

    /// Registers stdin in `loop` when it can be polled; `onReadable` runs when it has data.
    func attach(to loop: EventLoop, onReadable: @escaping () -> Void) {
        setNonBlocking(fd)
        pollable = loop.add(fd) { _ in onReadable() }
        if pollable { self.loop = loop }
    }

    /// Whether stdin must be read without waiting for readiness (regular file, /dev/null).
    var needsDirectRead: Bool { !pollable && !reachedEOF && hold == nil && nextIndex == lines.count }

    /// The instant a hold ends by itself, if any.
    var holdDeadline: Instant? {
        switch hold {
        case .wait(_, _, let deadline, _, _): return deadline
        case .sleep(let until): return until
        case nil: return nil
        }
    }

    /// Reads what stdin has now (one chunk), splitting it into lines.
    func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { bytes in
            retryingOnInterrupt { read(fd, bytes.baseAddress!, bytes.count) }
        }
        if count > 0 {
            for byte in buffer[..<count] {
                if byte == UInt8(ascii: "\n") {
                    lineNumber += 1
                    lines.append((lineNumber, String(decoding: partial, as: UTF8.self)))
                    partial.removeAll(keepingCapacity: true)
                } else {
                    partial.append(byte)
                }
            }
        } else if count == 0 || errno != EAGAIN {
            // A pipe at its end stays readable: stop watching it, or the loop would spin.
            reachedEOF = true
            loop?.remove(fd)
            if !partial.isEmpty {
                lineNumber += 1
                lines.append((lineNumber, String(decoding: partial, as: UTF8.self)))
                partial.removeAll()
            }
        }
    }

    /// The next line to run, unless a hold is in force or none is buffered.
    func nextLine() -> (number: Int, text: String)? {
        guard hold == nil, nextIndex < lines.count else { return nil }
        defer {
            nextIndex += 1
            if nextIndex == lines.count {
                lines.removeAll(keepingCapacity: true)
                nextIndex = 0
            }
        }
        return lines[nextIndex]
    }
}
