import Foundation
import SuperviseTestSupport
import Testing

/// A `.computing` suite's tests run on the one computing thread, neither on the cooperative pool
/// nor on the blocking threads.
@Suite(.computing) struct ComputingThreadTests {
    @Test func aComputingSuiteRunsOnTheComputingThread() {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
        #expect(name == "compute-test-0\n", "\(name)")
    }
}
