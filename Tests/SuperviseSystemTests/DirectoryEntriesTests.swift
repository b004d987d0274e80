import Glibc
import SuperviseTestSupport
import SystemPackage
import Testing
@testable import SuperviseSystem

/// The one directory listing (`Descriptor.directoryEntries`), which the freezers' sweep of
/// cgroup folders (`FileIO.subdirectories`) and the sweep of leftover result files share.
@Suite struct DirectoryEntriesTests {
    let temporary = TemporaryDirectory()

    @Test func everyNameButDotAndDotDotWithWhatItIs() throws {
        try #require(mkdir(temporary.file("folder"), 0o700) == 0)
        try #require(creat(temporary.file("file"), 0o600) >= 0)
        try #require(symlink("file", temporary.file("link")) == 0)
        let directory = open(temporary.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }

        let entries = try Descriptor.directoryEntries(directory).get()
        #expect(Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.type) })
                == ["folder": UInt8(DT_DIR), "file": UInt8(DT_REG), "link": UInt8(DT_LNK)])
        #expect(lseek(directory, 0, SEEK_CUR) == 0, "the caller's descriptor is left where it was")
        #expect(try FileIO.subdirectories(of: temporary.path).get() == ["folder"])
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileIO.subdirectories(of: temporary.file("gone")).get() }
    }
}
