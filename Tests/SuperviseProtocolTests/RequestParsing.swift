import SuperviseProtocol

/// What the suites of requests share: a line parsed, its error code, a task ID from text.
protocol RequestParsing {}

extension RequestParsing {
    func parse(_ text: String) -> Result<Request, RequestError>? {
        RequestParser.parse(Array(text.utf8))
    }

    /// The code of the error `text` is refused with, or nil when it parses.
    func code(_ text: String) -> ProtocolErrorCode? {
        guard case .failure(let error) = parse(text) else { return nil }
        return error.code
    }

    func id(_ text: String) -> TaskID { TaskID(text)! }
}
