/// One libFuzzer target for the parsers that read others' bytes: the first byte picks the
/// parser, the rest is its input. Built by scripts/libfuzzer.sh from the parsers' own sources.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let text = String(decoding: bytes, as: UTF8.self)
    switch data[0] % 5 {
    case 0:
        var splitter = LineSplitter(maxLineLength: 64)
        splitter.append(contentsOf: bytes)
        while let line = splitter.finish() {
            if case .line(let line) = line { _ = RequestParser.parse(line) }
        }
    case 1:
        if let event = Event(line: bytes) { precondition(Event(line: Array(event.line.utf8)) != nil) }
    case 2: _ = try? ControlParser.parse(text)
    case 3: _ = try? DurationParser.parse(text)
    default: _ = try? TOMLParser.parse(text)
    }
    return 0
}
