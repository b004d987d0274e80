import SuperviseProtocol
import Testing

@Suite(.timeLimit(.minutes(5))) struct EventCodecTests {
    static let everyEvent: [Event] = [
        .didFinishLaunching(.foreground),
        .didFinishLaunching(.background),
        .didFinishLaunching(.background, reclaimed: true),
        .didBecomeActive,
        .willResignActive,
        .didEnterBackground(seq: 1, windowMS: 5000, limitMS: 30000),
        .didEnterBackground(seq: .max, windowMS: 0, limitMS: .max),
        .event(seq: 2, kind: "push", text: nil),
        .event(seq: 3, kind: "fetch", text: "new mail from  alice ✓"),
        .expire(TaskID("t-1.x_y")!),
        .willEnterForeground,
        .willTerminate(graceMS: 5000),
        .error(RequestError(code: .duplicateID, request: "begin t1 upload")),
        .error(RequestError(code: .unknownRequest, request: " ")),
        .error(RequestError(code: .badUTF8, request: "a\u{FFFD}b")),
    ] + ProtocolErrorCode.allCases.map { .error(RequestError(code: $0, request: "x y")) }

    @Test func exactSpellings() {
        #expect(Event.didFinishLaunching(.foreground).line == "did-finish-launching foreground\n")
        #expect(Event.didFinishLaunching(.background).line == "did-finish-launching background\n")
        #expect(Event.didFinishLaunching(.background, reclaimed: true).line
            == "did-finish-launching background reclaimed\n")
        #expect(Event.didBecomeActive.line == "did-become-active\n")
        #expect(Event.willResignActive.line == "will-resign-active\n")
        #expect(Event.didEnterBackground(seq: 4, windowMS: 5000, limitMS: 30000).line
            == "did-enter-background 4 5000 30000\n")
        #expect(Event.event(seq: 4, kind: "push", text: nil).line == "event 4 push\n")
        #expect(Event.event(seq: 4, kind: "push", text: "a b").line == "event 4 push a b\n")
        #expect(Event.expire(TaskID("t1")!).line == "expire t1\n")
        #expect(Event.willEnterForeground.line == "will-enter-foreground\n")
        #expect(Event.willTerminate(graceMS: 0).line == "will-terminate 0\n")
        #expect(Event.error(RequestError(code: .staleDone, request: "done 3")).line == "error stale-done done 3\n")
    }

    @Test(arguments: everyEvent)
    func roundTrips(_ event: Event) {
        #expect(Event(line: Array(event.line.utf8)) == event)
        var buffer: [UInt8] = []
        event.write(into: &buffer)
        #expect(buffer.last == UInt8(ascii: "\n"))
        #expect(Event(line: buffer.dropLast()) == event)
    }

    @Test func writeAppendsAfterExistingBytes() {
        var buffer = Array("did-enter-background 1 5000 30000\n".utf8)
        Event.event(seq: 1, kind: "sync", text: nil).write(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "did-enter-background 1 5000 30000\nevent 1 sync\n")
    }

    @Test func freeTextCannotBreakTheLine() {
        let event = Event.event(seq: 1, kind: "a b\nc", text: "line1\nline2\r\n")
        #expect(event.line == "event 1 a_b_c line1 line2  \n")
        #expect(Event.event(seq: 1, kind: "", text: nil).line == "event 1 _\n")
        let error = Event.error(RequestError(code: .badID, request: "x\ny"))
        #expect(error.line == "error bad-id x y\n")
    }

    @Test func longLinesAreCutOnACharacterBoundary() {
        let text = String(repeating: "é", count: 2000)  // 2 bytes each
        let line = Array(Event.event(seq: 1, kind: "k", text: text).line.utf8)
        #expect(line.count <= maxLineLength)
        #expect(line.count >= maxLineLength - 2)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        #expect(String(validating: line, as: UTF8.self) != nil)
        guard case .event(1, "k", let decoded?) = Event(line: line) else {
            Issue.record("a cut line should still decode")
            return
        }
        #expect(decoded.allSatisfy { $0 == "é" })

        let ascii = Array(Event.event(seq: 1, kind: "k", text: String(repeating: "a", count: 5000)).line.utf8)
        #expect(ascii.count == maxLineLength)
    }

    @Test func longErrorRequestIsCut() {
        let line = Event.error(RequestError(code: .unknownRequest, request: String(repeating: "r", count: 3000))).line
        #expect(line.utf8.count == maxLineLength)
        #expect(line.hasPrefix("error unknown-request rrr") && line.hasSuffix("r\n"))
    }

    @Test func decodingIgnoresExtraFieldsAndAcceptsCRLF() {
        #expect(Event(line: Array("did-become-active later\r\n".utf8)) == .didBecomeActive)
        #expect(Event(line: Array("will-terminate 250 x".utf8)) == .willTerminate(graceMS: 250))
        #expect(Event(line: Array("did-enter-background 2 1 3 extra".utf8))
            == .didEnterBackground(seq: 2, windowMS: 1, limitMS: 3))
        #expect(Event(line: Array("expire t9 soon".utf8)) == .expire(TaskID("t9")!))
        #expect(Event(line: Array("did-finish-launching background x".utf8)) == .didFinishLaunching(.background))
        #expect(Event(line: Array("did-finish-launching background reclaimed later".utf8))
            == .didFinishLaunching(.background, reclaimed: true))
    }

    @Test func unknownOrMalformedEventsAreNil() {
        for text in [
            "", "hello", "did-become-activex", "Did-become-active", "did-finish-launching",
            "did-finish-launching sideways", "did-enter-background 1 5000", "did-enter-background x 1 2",
            "did-enter-background 1 -5 30000", "event", "event 1", "event x push", "expire", "expire a/b",
            "will-terminate", "will-terminate soon", "error", "error no-such-code x",
        ] {
            #expect(Event(line: Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func errorWithNoRequestText() {
        #expect(Event(line: Array("error bad-id".utf8)) == .error(RequestError(code: .badID, request: "")))
    }
}

@Suite(.timeLimit(.minutes(5))) struct RequestEncodingTests {
    static let everyRequest: [Request] = [
        .hello,
        .done(seq: 1),
        .done(seq: .max),
        .begin(id: TaskID("t1")!, name: nil),
        .begin(id: TaskID("t1")!, name: "upload photos  to server"),
        .begin(id: TaskID(String(repeating: "Z", count: 64))!, name: "ünïcode ✓"),
        .end(id: TaskID("a.b_c-d")!),
    ]

    @Test func exactSpellings() {
        #expect(Request.hello.line == "hello 1\n")
        #expect(Request.done(seq: 12).line == "done 12\n")
        #expect(Request.begin(id: TaskID("7")!, name: nil).line == "begin 7\n")
        #expect(Request.begin(id: TaskID("7")!, name: "").line == "begin 7\n")
        #expect(Request.begin(id: TaskID("7")!, name: "a b").line == "begin 7 a b\n")
        #expect(Request.end(id: TaskID("7")!).line == "end 7\n")
    }

    @Test(arguments: everyRequest)
    func roundTrips(_ request: Request) {
        var splitter = LineSplitter()
        splitter.append(contentsOf: request.line.utf8)
        guard case .line(let line)? = splitter.next() else {
            Issue.record("an encoded request is one line")
            return
        }
        #expect(RequestParser.parse(line) == .success(request))
    }

    @Test func nameCannotBreakTheLineOrExceedTheLimit() {
        #expect(Request.begin(id: TaskID("n")!, name: "a\nb\r").line == "begin n a b \n")
        let long = Request.begin(id: TaskID("n")!, name: String(repeating: "ж", count: 1000)).line
        #expect(long.utf8.count <= maxLineLength)
        #expect(long.hasSuffix("ж\n"))
    }
}
