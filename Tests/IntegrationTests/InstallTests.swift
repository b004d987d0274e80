import Foundation
import SuperviseTestSupport
import Testing

/// `scripts/install.sh` puts a stripped, runnable `supervise` in PREFIX/bin. The release build it
/// starts with takes minutes, so the tests hand it the binary the suite already built.
@Suite(.timeLimit(.minutes(5))) struct InstallTests {
    let prefix = TemporaryDirectory(prefix: "supervise-install")

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/install.sh").path

    @Test func installsAStrippedBinaryThatRuns() throws {
        let result = try runToEnd(["/bin/bash", Self.script, "--binary", Supervise.binary, prefix.path])
        #expect(result.status == 0, "\(result.output)")
        let installed = prefix.file("bin/supervise")
        #expect(result.output.contains("installed \(installed)"))
        let attributes = try FileManager.default.attributesOfItem(atPath: installed)
        let original = try FileManager.default.attributesOfItem(atPath: Supervise.binary)
        #expect((attributes[.posixPermissions] as? Int) == 0o755)
        #expect((attributes[.size] as? Int ?? .max) < (original[.size] as? Int ?? 0), "stripped of its symbols")
        let help = try runToEnd([installed, "--help"])
        #expect(help.status == 0 && help.output.contains("OVERVIEW:"), "\(help.output)")
    }

    @Test func refusesWhatIsNotAnExecutable() throws {
        let result = try runToEnd(["/bin/bash", Self.script, "--binary", prefix.file("missing"), prefix.path])
        #expect(result.status == 1)
        #expect(result.output == "install.sh: \(prefix.file("missing")) is not an executable\n")
        #expect(!FileManager.default.fileExists(atPath: prefix.file("bin/supervise")))
    }
}
