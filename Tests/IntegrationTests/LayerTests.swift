import Foundation
import SuperviseTestSupport
import Testing

/// `scripts/check-layers.sh` passes on the repository, and fails on a copy of `Sources/`
/// given one import its target may not have: the check itself can fail.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct LayerTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs the script on `sources` (the repository's own when `nil`): its status and output lines.
    static func checkLayers(_ sources: URL? = nil) throws -> (status: Int32, lines: [String]) {
        let script = repository.appendingPathComponent("scripts/check-layers.sh").path
        let result = try runToEnd(["/bin/bash", script] + (sources.map { [$0.path] } ?? []))
        return (result.status, result.output.split(separator: "\n").map(String.init))
    }

    @Test func theRepositoryKeepsItsLayers() throws {
        let result = try Self.checkLayers()
        #expect(result.lines == [])
        #expect(result.status == 0)
    }

    @Test(arguments: [
        ("SuperviseShell/Report/Timeline.swift", "import Glibc", "imports Glibc"),
        ("SuperviseLifecycle/Instant.swift", "import Foundation", "imports Foundation"),
        ("SuperviseProtocol/TaskID.swift", "import SuperviseLifecycle", "imports SuperviseLifecycle"),
        ("SuperviseSystem/Process/Reaper.swift", "@_exported import SuperviseLifecycle", "@_exported"),
    ])
    func oneBadImportFailsNamingTheFileAndTheImport(file: String, line: String, mentions: String) throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("supervise-layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let sources = copy.appendingPathComponent("Sources")
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Sources"), to: sources)
        let target = sources.appendingPathComponent(file)
        let original = try String(contentsOf: target, encoding: .utf8)
        try (line + "\n" + original).write(to: target, atomically: true, encoding: .utf8)

        let result = try Self.checkLayers(sources)
        #expect(result.status == 1)
        #expect(result.lines.count == 1)
        #expect(result.lines.first?.contains(file) == true)
        #expect(result.lines.first?.contains(mentions) == true)
    }
}
