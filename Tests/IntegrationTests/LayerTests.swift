import Foundation
import SuperviseTestSupport
import Testing

/// `scripts/check-layers.sh` passes on the repository, and fails on a copy of `Sources/` given
/// one import its target may not have, one Package.swift does not declare, or one it uses nothing
/// of: the check itself can fail.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct LayerTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The build these tests run from, whose `Modules/` the unused-import check type-checks
    /// each target against: the first directory above the test bundle that has one.
    static var build: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path),
              directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.path
    }

    /// Runs the script on `sources` (the repository's own when `nil`), looking for unused imports
    /// in `targets` only when given: its status and output lines.
    static func checkLayers(_ sources: URL? = nil, targets: [String] = []) throws -> (status: Int32, lines: [String]) {
        let script = repository.appendingPathComponent("scripts/check-layers.sh").path
        let arguments = sources.map { [$0.path] + targets } ?? []
        let result = try runToEnd(["/usr/bin/env", "SUPERVISE_BUILD=\(build)", "/bin/bash", script] + arguments)
        return (result.status, result.output.split(separator: "\n").map(String.init))
    }

    /// A copy of the repository's `Sources/` and `Package.swift`, with `line` put first in `file`
    /// and the manifest changed by `manifest`, removed after `body`.
    static func withSources<T>(adding line: String = "", to file: String? = nil,
                               manifest: (String) -> String = { $0 }, _ body: (URL) throws -> T) throws -> T {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("supervise-layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        let sources = copy.appendingPathComponent("Sources")
        try FileManager.default.copyItem(at: repository.appendingPathComponent("Sources"), to: sources)
        let package = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        try manifest(package).write(to: copy.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        if let file {
            let target = sources.appendingPathComponent(file)
            let original = try String(contentsOf: target, encoding: .utf8)
            try (line + "\n" + original).write(to: target, atomically: true, encoding: .utf8)
        }
        return try body(sources)
    }

    @Test func theRepositoryKeepsItsLayersAndUsesEveryImport() throws {
        let result = try Self.checkLayers()
        #expect(result.lines == [])
        #expect(result.status == 0)
    }

    @Test(arguments: [
        ("SuperviseShell/Report/Timeline.swift", "import Glibc", "imports Glibc"),
        ("SuperviseLifecycle/Instant.swift", "import Foundation", "imports Foundation"),
        ("SuperviseProtocol/TaskID.swift", "import SuperviseLifecycle", "imports SuperviseLifecycle"),
        ("SuperviseSystem/Process/Reaper.swift", "@_exported import SuperviseLifecycle", "@_exported"),
        // The run path never draws: the renderers are for `supervise report`, a process of its own.
        ("SuperviseShell/Report/XMLText.swift", "import SuperviseReport", "imports SuperviseReport"),
    ])
    func oneBadImportFailsNamingTheFileAndTheImport(file: String, line: String, mentions: String) throws {
        let result = try Self.withSources(adding: line, to: file) { try Self.checkLayers($0) }
        #expect(result.status == 1)
        #expect(result.lines.count == 1)
        #expect(result.lines.first?.contains(file) == true)
        #expect(result.lines.first?.contains(mentions) == true)
    }

    /// The CLI's imports of SuperviseProtocol, once Package.swift no longer declares it.
    @Test func anImportPackageSwiftDoesNotDeclareFails() throws {
        let declared = "                \"SuperviseLifecycle\",\n                \"SuperviseProtocol\",\n                \"SuperviseReport\","
        let result = try Self.withSources(manifest: { manifest in
            #expect(manifest.contains(declared))
            return manifest.replacingOccurrences(of: declared, with: "                \"SuperviseLifecycle\",\n                \"SuperviseReport\",")
        }) { try Self.checkLayers($0) }
        #expect(result.status == 1)
        #expect(!result.lines.isEmpty)
        for line in result.lines {
            #expect(line.contains("/Sources/supervise/")
                && line.hasSuffix(": imports SuperviseProtocol, which Package.swift does not declare as a dependency of supervise"))
        }
    }

    /// Imports the layers allow, that the file uses nothing of: a C module, and a target it
    /// could use but does not. In the client library, the smallest target that may import both:
    /// each case type-checks the target.
    @Test(arguments: [
        ("SuperviseClient/BackgroundTaskRequest.swift", "Glibc"),
        ("SuperviseClient/BackgroundTaskRequest.swift", "SuperviseSystemCall"),
    ])
    func oneUnusedImportFailsNamingTheFileAndTheImport(file: String, module: String) throws {
        let result = try Self.withSources(adding: "import \(module)", to: file) {
            try Self.checkLayers($0, targets: ["SuperviseClient"])
        }
        #expect(result.status == 1)
        #expect(result.lines.count == 1, "\(result.lines)")
        #expect(result.lines.first?.hasSuffix("\(file): imports \(module) but uses nothing of it: remove the import") == true)
    }
}
