import SuperviseProtocol
import Testing

@Suite(.timeLimit(.minutes(5))) struct RequestParserTests: RequestParsing {
    @Test func emptyLineIsIgnored() {
        #expect(parse("") == nil)
    }

    @Test func parsesEveryRequest() {
        #expect(parse("hello 1") == .success(.hello))
        #expect(parse("done 3") == .success(.done(seq: 3)))
        #expect(parse("begin t1") == .success(.begin(id: id("t1"), name: nil)))
        #expect(parse("begin t1 upload") == .success(.begin(id: id("t1"), name: "upload")))
        #expect(parse("end t1") == .success(.end(id: id("t1"))))
    }

    @Test func nameIsTheRestOfTheLineSpacesIncluded() {
        #expect(parse("begin a.b_c-9 upload  photos to  server ")
            == .success(.begin(id: id("a.b_c-9"), name: "upload  photos to  server ")))
        #expect(parse("begin x ") == .success(.begin(id: id("x"), name: nil)))
        #expect(parse("begin x héllo ✓") == .success(.begin(id: id("x"), name: "héllo ✓")))
    }

    @Test func ignoresExtraTrailingFields() {
        #expect(parse("hello 1 future") == .success(.hello))
        #expect(parse("done 9 more") == .success(.done(seq: 9)))
        #expect(parse("end t1 reason") == .success(.end(id: id("t1"))))
    }

    @Test func unknownRequest() {
        #expect(code("start t1") == .unknownRequest)
        #expect(code("Begin t1") == .unknownRequest)
        #expect(code("HELLO 1") == .unknownRequest)
        #expect(code("hellox 1") == .unknownRequest)
        #expect(code(" hello 1") == .unknownRequest)
        #expect(code(" ") == .unknownRequest)
    }

    @Test func badUTF8() {
        #expect(RequestParser.parse([0x62, 0x65, 0x67, 0x69, 0x6E, 0x20, 0x61, 0x20, 0xFF])?.error?.code == .badUTF8)
        #expect(RequestParser.parse([0xC0, 0xAF])?.error?.code == .badUTF8)  // overlong
        #expect(RequestParser.parse([0xED, 0xA0, 0x80])?.error?.code == .badUTF8)  // surrogate
        #expect(RequestParser.parse([0x65, 0x6E, 0x64, 0x20, 0xE2, 0x82])?.error?.code == .badUTF8)  // cut
    }

    @Test func badID() {
        #expect(code("begin") == .badID)
        #expect(code("begin ") == .badID)
        #expect(code("begin  name") == .badID)
        #expect(code("end") == .badID)
        #expect(code("end a/b") == .badID)
        #expect(code("begin é") == .badID)
        #expect(code("end " + String(repeating: "x", count: 65)) == .badID)
        #expect(code("begin " + String(repeating: "x", count: 65) + " name") == .badID)
    }

    @Test func idOfSixtyFourCharactersIsAccepted() {
        let long = String(repeating: "a", count: 64)
        #expect(parse("begin \(long) n") == .success(.begin(id: id(long), name: "n")))
        #expect(parse("end \(long)") == .success(.end(id: id(long))))
    }

    @Test func badVersion() {
        #expect(code("hello") == .badVersion)
        #expect(code("hello ") == .badVersion)
        #expect(code("hello 2") == .badVersion)
        #expect(code("hello 0") == .badVersion)
        #expect(code("hello 1.0") == .badVersion)
        #expect(code("hello  1") == .badVersion)
    }

    @Test func staleDoneForAMissingOrMalformedSeq() {
        #expect(code("done") == .staleDone)
        #expect(code("done ") == .staleDone)
        #expect(code("done 0") == .staleDone)
        #expect(code("done -1") == .staleDone)
        #expect(code("done +1") == .staleDone)
        #expect(code("done 1x") == .staleDone)
        #expect(code("done 18446744073709551616") == .staleDone)
        #expect(parse("done 18446744073709551615") == .success(.done(seq: .max)))
    }

    @Test func errorCarriesTheRequestAsReceived() {
        guard case .failure(let error) = parse("nope a b") else {
            Issue.record("expected an error")
            return
        }
        #expect(error == RequestError(code: .unknownRequest, request: "nope a b"))
    }

    @Test func rawRequestIsCutTo200Bytes() {
        let text = "x" + String(repeating: "y", count: 300)
        let error = RequestError(code: .unknownRequest, rawRequest: Array(text.utf8))
        #expect(error.request.utf8.count == 200)
        #expect(error.request == String(text.prefix(200)))
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        let error = RequestError(code: .badUTF8, rawRequest: [0x61, 0xFF, 0x62, 0xC3])
        #expect(error.request == "a\u{FFFD}b\u{FFFD}")
    }

    @Test func cutComesBeforeDecoding() {
        // 199 ASCII bytes, then "é" (2 bytes): the cut at 200 splits it.
        let bytes = Array(String(repeating: "a", count: 199).utf8) + Array("é".utf8)
        let error = RequestError(code: .badUTF8, rawRequest: bytes)
        #expect(error.request == String(repeating: "a", count: 199) + "\u{FFFD}")
    }

    @Test func parserErrorsAreCut() {
        let line = "frobnicate " + String(repeating: "q", count: 500)
        #expect(parse(line)?.error?.request == String(line.prefix(200)))
    }

    @Test func acceptsAnyContiguousOrNonContiguousCollection() {
        let bytes = Array("done 5".utf8)
        #expect(RequestParser.parse(bytes[...]) == .success(.done(seq: 5)))
        #expect(RequestParser.parse("done 5".utf8) == .success(.done(seq: 5)))
    }
}

extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
