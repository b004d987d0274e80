extension RequestError {
    /// How many bytes of the offending request an error keeps.
    public static let maxRequestLength = 200

    /// An error for `rawRequest` as received: cut to ``maxRequestLength`` bytes first, then
    /// decoded with invalid UTF-8 (including a character the cut split) replaced by U+FFFD.
    public init(code: ProtocolErrorCode, rawRequest: some Collection<UInt8>) {
        self.init(code: code, request: String(decoding: rawRequest.prefix(Self.maxRequestLength), as: UTF8.self))
    }
}
