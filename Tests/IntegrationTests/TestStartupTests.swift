import Foundation
import SuperviseTestSupport
import Testing

/// The test bundle's start (Tests/CSuperviseTestSupport/PythonPath.c) left pyenv's shims off PATH, so the
/// processes every test starts run Debian's python3 directly.
@Suite(.blockingThreads) struct TestStartupTests {
    static let missingReason: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
        ? nil : "/usr/bin/python3 is not installed, so PATH is left as it was"

    @Test(.skip("the PATH without shims", because: missingReason, in: "TestStartupTests"))
    func pathHasNoPythonShimsWhenDebiansPython3IsThere() throws {
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(!path.split(separator: ":").contains { $0.hasSuffix("/.pyenv/shims") }, "\(path)")
    }
}
