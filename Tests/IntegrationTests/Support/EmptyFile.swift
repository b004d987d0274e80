import Foundation

/// A new empty file at `path` (one there is emptied), open for writing: where a process a test
/// starts writes its output, to be read from `path` afterwards.
func emptyFileForWriting(_ path: String) throws -> FileHandle {
    try Data().write(to: URL(fileURLWithPath: path))
    return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
}
