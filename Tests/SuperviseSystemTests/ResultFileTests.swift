import Foundation
import Glibc
import Testing
@testable import SuperviseSystem
import SuperviseTestSupport

/// A result file is checked before the run and written whole at its end, only ever in place of
/// nothing or of a regular file: never through or over a link, a device or a FIFO.
@Suite(.timeLimit(.minutes(5))) struct ResultFileTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory(prefix: "supervise-result")
    var directory: String { temporary.path }

    func refusal(_ path: String) -> String? {
        do {
            _ = try ResultFile(path: path)
            return nil
        } catch {
            return error.message
        }
    }

    func written(_ text: String, to path: String) throws -> Bool {
        let file = try ResultFile(path: path)
        guard case .success = file.write(text) else { return false }
        return true
    }

    /// The directory's entries, hidden ones too: a temporary file left behind shows here.
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() }

    @Test func writesANewFileWholeAndReadableByItsOwnerOnly() throws {
        let path = directory + "/run.json"
        #expect(try written("{}\n", to: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n")
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(entries == ["run.json"], "the check's probe and the temporary file are gone")
    }

    @Test func replacesARegularFile() throws {
        let path = directory + "/run.json"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try written("new\n", to: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(entries == ["run.json"])
    }

    @Test func aLinkOrFIFOPlantedBesideTheFileIsNeverFollowed() throws {
        let victim = directory + "/victim"
        try "secret\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, directory + "/run.json.tmp-\(getpid())")
        mkfifo(directory + "/.run.json.fifo", 0o644)
        #expect(try written("{}\n", to: directory + "/run.json"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
        #expect(try String(contentsOfFile: directory + "/run.json", encoding: .utf8) == "{}\n")
    }

    @Test func aSymbolicLinkAtThePathIsRefusedAndLeftAlone() throws {
        let victim = directory + "/victim"
        try "secret\n".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, directory + "/run.json")
        #expect(refusal(directory + "/run.json")?.hasPrefix("it is a symbolic link") == true)
        #expect(refusal("/dev/stdout")?.hasPrefix("it is a symbolic link") == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/run.json")) == victim)
    }

    @Test(arguments: [("/dev/null", "it is a character device, not a regular file"),
                      ("/dev/full", "it is a character device, not a regular file"),
                      ("/", "it names a directory"), ("/tmp", "it is a directory"), ("/tmp/", "it names a directory"),
                      ("", "it is empty"),
                      ("/nonexistent-supervise-dir/run.json", "its directory '/nonexistent-supervise-dir' can't be used: no such file or directory"),
                      ("/proc/supervise-run.json", "cannot create a file in '/proc'")])
    func whatCanNotTakeAResultIsRefused(path: String, reason: String) {
        #expect(refusal(path)?.hasPrefix(reason) == true, "\(refusal(path) ?? "accepted")")
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAReader() {
        mkfifo(directory + "/run.json", 0o644)
        #expect(refusal(directory + "/run.json")?.hasPrefix("it is a FIFO") == true)
    }

    @Test func aRelativePathIsInTheWorkingDirectory() throws {
        let file = try ResultFile(path: "supervise-result-\(getpid()).json")
        let same = try ResultFile(path: "./supervise-result-\(getpid()).json")
        #expect(file.isSame(as: same))
        #expect(!FileManager.default.fileExists(atPath: "supervise-result-\(getpid()).json"), "only checked, not made")
    }

    @Test func twoPathsToOneFileAreTheSame() throws {
        try FileManager.default.createDirectory(atPath: directory + "/sub", withIntermediateDirectories: false)
        let report = try ResultFile(path: directory + "/run.json")
        #expect(report.isSame(as: try ResultFile(path: directory + "/sub/../run.json")), "no file yet: by directory and name")
        #expect(!report.isSame(as: try ResultFile(path: directory + "/run.xml")))
        try "old\n".write(toFile: directory + "/run.json", atomically: false, encoding: .utf8)
        link(directory + "/run.json", directory + "/hard.json")
        #expect(try ResultFile(path: directory + "/run.json").isSame(as: try ResultFile(path: directory + "/hard.json")),
                "a hard link: by device and inode")
        #expect(try ResultFile(path: directory + "/hard.json").isSame(asFileAt: directory + "/sub/../run.json"))
        #expect(!(try ResultFile(path: directory + "/run.xml")).isSame(asFileAt: directory + "/run.json"))
    }

    @Test func aDestinationSwappedForALinkDuringTheRunIsNotReplaced() throws {
        let path = directory + "/run.json"
        let victim = directory + "/victim"
        try "secret\n".write(toFile: victim, atomically: false, encoding: .utf8)
        for existed in [false, true] {
            if existed { try "old\n".write(toFile: path, atomically: false, encoding: .utf8) }
            let file = try ResultFile(path: path)
            unlink(path)
            symlink(victim, path)
            guard case .failure(let error) = file.write("{}\n") else {
                Issue.record("a link put there after the check was replaced")
                continue
            }
            #expect(error.message == "it is now a symbolic link, not a regular file")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == victim)
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "secret\n")
            #expect(entries == ["run.json", "victim"], "no temporary file left behind")
            unlink(path)
        }
    }

    @Test func theDirectoryIsKeptFromTheCheck() throws {
        // Renaming the directory and putting a link in its place moves nothing: the file goes
        // where the path led when it was checked.
        try FileManager.default.createDirectory(atPath: directory + "/out", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: directory + "/elsewhere", withIntermediateDirectories: false)
        let file = try ResultFile(path: directory + "/out/run.json")
        rename(directory + "/out", directory + "/moved")
        symlink(directory + "/elsewhere", directory + "/out")
        #expect({ if case .success = file.write("{}\n") { true } else { false } }())
        #expect(FileManager.default.fileExists(atPath: directory + "/moved/run.json"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/elsewhere/run.json"))
    }
}
