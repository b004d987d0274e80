import Foundation
import Synchronization
import SuperviseTestSupport
import Testing

/// Every integration suite runs on the blocking threads (`.blockingThreads`, docs/testing.md): one
/// that forgot it would hold a thread of Swift Testing's cooperative pool, as wide as the machine
/// has cores, for as long as its processes run.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct BlockingThreadsTraitTests {
    @Test func everyIntegrationSuiteRunsOnTheBlockingThreads() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        // The suites' files, in this folder and its subfolders (Engines/), but not Support/ or Workers/.
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".swift") && !$0.hasPrefix("Support/") && !$0.hasPrefix("Workers/")
        }
        var suites = 0, without: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOfFile: folder.appendingPathComponent(file).path, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") {
                suites += 1
                if !line.contains(".blockingThreads") { without.append("\(file):\(number + 1)") }
            }
        }
        #expect(suites > 50, "found only \(suites) suites in \(folder.path)")
        #expect(without.isEmpty, "@Suite without .blockingThreads: \(without.joined(separator: ", "))")
    }

    /// Every fuzz suite computes on the one thread of its own (`.computing`): on the cooperative
    /// pool the fuzz tests held back the start of every other test.
    @Test func everyFuzzSuiteComputesOnItsOwnThread() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzTests")
        var suites = 0, without: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder.appendingPathComponent(file).path, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("@Suite") {
                suites += 1
                if !line.contains(".computing") { without.append(file) }
            }
        }
        #expect(suites >= 8, "found only \(suites) suites in \(folder.path)")
        #expect(without.isEmpty, "@Suite without .computing: \(without.joined(separator: ", "))")
    }

    /// This suite's test runs on a blocking thread, not the cooperative pool.
    @Test func aBlockingSuiteRunsOnABlockingThread() {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
        #expect(name.hasPrefix("block-test-"), "\(name)")
    }
}

/// A serialized suite's tests run on the blocking threads too (ahead of the others' jobs, on the
/// same threads), one at a time.
@Suite(.blockingThreads, .serialized) struct SerializedSuiteThreadTests {
    static let running = Mutex(0)

    @Test(arguments: 0..<3) func aSerializedSuitesTestsRunOnTheBlockingThreadsOneAtATime(index: Int) {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
        #expect(name.hasPrefix("block-test-"), "\(name)")
        let others = Self.running.withLock { count in defer { count += 1 }; return count }
        Thread.sleep(forTimeInterval: 0.05)
        Self.running.withLock { $0 -= 1 }
        #expect(others == 0, "case \(index) ran beside another")
    }
}
