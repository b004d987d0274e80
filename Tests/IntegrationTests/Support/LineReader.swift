import Foundation

/// Reads a descriptor to its end on its own thread, keeping whole lines for a test to take in order.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var taken = 0
    private var ended = false

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty {
                    if !partial.isEmpty { lines.append(String(decoding: partial, as: UTF8.self)) }
                    ended = true
                } else {
                    partial.append(data)
                    while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                        lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                        partial = Data(partial[(newline + 1)...])
                    }
                }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { return }
            }
        }
        thread.start()
    }

    /// The next line not yet taken that satisfies `matching`, skipping others; `nil` at the end of
    /// input or when `timeout` seconds pass first.
    func next(timeout: Double, matching: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            while taken < lines.count {
                taken += 1
                if matching(lines[taken - 1]) { return lines[taken - 1] }
            }
            if ended || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits (at most `timeout` seconds) for the end of input; whether it came.
    func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            if !condition.wait(until: deadline) { return ended }
        }
        return true
    }

    /// Whether the writer closed its end.
    var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Everything read so far, taken or not.
    var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }
}
