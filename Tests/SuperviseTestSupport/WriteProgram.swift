import Foundation

/// A failure to put a program in place for a test.
public struct ProgramNotWritten: Error, CustomStringConvertible {
    public let description: String
}

/// Writes `text` to `path` as a program (mode 0755) through `install`, a process that forks
/// nothing. A descriptor open for writing in the test process is inherited by whatever another
/// test's thread forks meanwhile, and while that child lives an exec of the file fails with
/// ETXTBSY (seen for over 0.6 s in DocCommandTests).
public func writeProgram(_ path: String, _ text: String) throws {
    let staged = path + ".text"
    guard FileManager.default.createFile(atPath: staged, contents: Data(text.utf8)) else {
        throw ProgramNotWritten(description: "\(staged): not written")
    }
    defer { try? FileManager.default.removeItem(atPath: staged) }
    let installed = try runToEnd(["/usr/bin/install", "-m", "0755", staged, path])
    guard installed.status == 0 else { throw ProgramNotWritten(description: "install \(path): \(installed.output)") }
}
