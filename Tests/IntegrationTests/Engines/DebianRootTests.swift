import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// The cached debootstrap roots every engine suite builds on are real Debian roots, made once.
@Suite(.blockingThreads, .serialized)
struct DebianRootTests {
    @Test(.skip("a debootstrap root", because: EngineGate.skipReason(DebianRoot.missingReason), in: "DebianRootTests"))
    func minbaseRootIsBookwormAndCachedAfterTheFirstRun() throws {
        let first = try DebianRoot.tarball("minbase")
        let modified = try FileManager.default.attributesOfItem(atPath: first)[.modificationDate] as? Date
        #expect(try DebianRoot.tarball("minbase") == first)
        #expect(try FileManager.default.attributesOfItem(atPath: first)[.modificationDate] as? Date == modified)

        let root = TemporaryDirectory()
        defer { root.remove() }
        try DebianRoot.unpack("minbase", into: root.path)
        let osRelease = try String(contentsOfFile: root.file("etc/os-release"), encoding: .utf8)
        #expect(osRelease.contains("VERSION_CODENAME=bookworm"))
        #expect(FileManager.default.isExecutableFile(atPath: root.file("bin/sh")))
        #expect(!FileManager.default.fileExists(atPath: root.file("opt/swift")), "a clean root has no Swift")
    }

    @Test func aNameThatIsNotAFileNameIsRefused() throws {
        let result = try runToEnd([DebianRoot.packageRoot + "/scripts/debian-root.sh", DebianRoot.cache, "../escape"])
        #expect(result.status == 2)
        #expect(result.output.contains("must be letters, digits"))
    }
}
}
