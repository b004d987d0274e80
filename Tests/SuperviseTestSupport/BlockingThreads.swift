import Foundation
import Testing

/// Threads of their own for tests that block: a `TaskExecutor` whose jobs run on a fixed set of
/// dedicated threads, not on Swift Testing's cooperative pool (as wide as the machine has cores).
///
/// An integration test is synchronous: it starts a real `supervise` and blocks its thread in
/// `waitUntilExit`, `eventually` or a pipe read until the processes have done something. On the
/// cooperative pool two such tests held both threads of a 2-core machine, so the rest of the
/// suite — unit tests included — waited behind them. Here they block these threads instead, and
/// `width` of them wait on their processes at once while the cooperative pool stays free.
public final class BlockingThreadPool: TaskExecutor, @unchecked Sendable {
    /// The pool every `.blockingThreads` suite runs on. `SUITE_THREADS` sets its width.
    public static let shared = BlockingThreadPool(
        width: ProcessInfo.processInfo.environment["SUITE_THREADS"].flatMap { Int($0) }.map { max($0, 1) } ?? 8)

    /// How many tests block at once at most.
    public let width: Int
    private let condition = NSCondition()
    /// The jobs waiting for a thread, oldest at `next`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    /// Starts `width` threads (8 MB stacks, as the main thread's) that wait for jobs.
    public init(width: Int) {
        self.width = width
        for index in 0..<width {
            let thread = Thread { [self] in runJobs() }
            thread.name = "blocking-test-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// A thread's life: take the oldest job, run it (to its end or its next suspension), repeat.
    private func runJobs() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite on `BlockingThreadPool.shared` (`withTaskExecutorPreference`), so that
/// a test blocking its thread on real processes holds one of those threads, not the cooperative pool.
///
/// Swift Testing's own times count from when a test is scheduled, queueing included; with
/// `SUITE_TIMES=1` each test case prints the time it ran on its thread:
/// `test time: 2.345 s MODULE.SUITE/TEST(LABELS:)/FILE:LINE:COLUMN` (`scripts/suite-times.sh` adds them up).
public struct BlockingThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Every test and test case below the suite runs in the scope.
    public var isRecursive: Bool { true }

    static let printsTimes = ProcessInfo.processInfo.environment["SUITE_TIMES"] == "1"

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingThreadPool.shared) {
            guard Self.printsTimes else { return try await function() }
            let start = ContinuousClock.now
            defer {
                let took = (ContinuousClock.now - start).components
                let seconds = Double(took.seconds) + Double(took.attoseconds) / 1e18
                print(String(format: "test time: %.3f s ", seconds) + "\(test.id)")
            }
            try await function()
        }
    }
}

extension Trait where Self == BlockingThreadsTrait {
    /// The suite's tests block their thread (on processes, pipes, `eventually`): they run on
    /// threads of their own, `BlockingThreadPool`. Every integration suite carries it:
    ///
    ///     @Suite(.blockingThreads, .timeLimit(.minutes(5))) struct FreezerTests { … }
    public static var blockingThreads: Self { Self() }
}
