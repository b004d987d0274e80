import SuperviseSystemCall
import Glibc
import SystemPackage

/// Why ``RegularFile/read(_:maxSize:)`` read nothing.
public enum RegularFileError: Error, Equatable, Sendable {
    /// The path could not be opened or read.
    case system(Errno)
    /// It is not a regular file: "a directory", "a character device", …
    case notRegular(kind: String)
    /// It has more than the maximum number of bytes.
    case tooLarge
}

/// Reads small regular files (the config file) whole, refusing anything else.
public enum RegularFile {
    /// The bytes of the regular file at `path`, at most `maxSize` of them. Opened non-blocking and
    /// close-on-exec, so that a FIFO is refused without waiting for a writer.
    public static func read(_ path: String, maxSize: Int) -> Result<[UInt8], RegularFileError> {
        let fd: Int32
        switch Descriptor.openForReading(path, flags: O_NONBLOCK) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(.system(error))
        }
        defer { Descriptor.close(fd) }
        if let kind = nonRegularKind(fd) { return .failure(.notRegular(kind: kind)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch chunk.withUnsafeMutableBytes({ Descriptor.read(fd, into: $0) }) {
            case .bytes(let count):
                bytes += chunk[..<count]
                if bytes.count > maxSize { return .failure(.tooLarge) }
            case .endOfFile:
                return .success(bytes)
            case .wouldBlock:
                return .failure(.system(.resourceTemporarilyUnavailable))
            case .failed(let error):
                return .failure(.system(error))
            }
        }
    }

    /// What `fd` is when it is not a regular file ("a directory", "a character device", …), else `nil`.
    private static func nonRegularKind(_ fd: Int32) -> String? {
        var status = stat()
        guard case .success = valueOrErrno({ fstat(fd, &status) }), status.st_mode & S_IFMT != S_IFREG else { return nil }
        return FileIdentity.kind(status.st_mode)
    }
}
