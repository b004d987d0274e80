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
        width: ProcessInfo.processInfo.environment["SUITE_THREADS"].flatMap { Int($0) }.map { max($0, 1) } ?? 12,
        name: "block-test")

    /// The one thread every `.computing` suite runs on, a test at a time.
    public static let computing = BlockingThreadPool(width: 1, name: "compute-test")

    /// How many tests block at once at most.
    public let width: Int
    private let condition = NSCondition()
    /// The jobs waiting for a thread, oldest at `next`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    /// Starts `width` threads (8 MB stacks, as the main thread's) named `name-INDEX` that wait for jobs.
    public init(width: Int, name: String) {
        self.width = width
        for index in 0..<width {
            // Named from inside, in at most 15 bytes (`block-test-999`): otherwise the kernel
            // keeps the name of the thread that made it, often a cooperative thread's.
            let thread = Thread { [self] in
                Thread.current.name = "\(name)-\(index)"
                runJobs()
            }
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
/// `SUITE_TIMES=1` each test case prints the time it ran on its thread, and when it started after
/// the first test did: `test time: 2.345 s MODULE.SUITE/TEST(LABELS:)/FILE:LINE:COLUMN at 12.3 s`
/// (`scripts/suite-times.sh` adds them up).
public struct BlockingThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// Every test and test case below the suite runs in the scope.
    public var isRecursive: Bool { true }

    /// The tests run on `BlockingThreadPool.computing`, not `.shared`.
    let computes: Bool

    static let printsTimes = ProcessInfo.processInfo.environment["SUITE_TIMES"] == "1"
    static let firstStart = ContinuousClock.now

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(computes ? BlockingThreadPool.computing : BlockingThreadPool.shared) {
            guard Self.printsTimes else { return try await function() }
            let origin = Self.firstStart, start = ContinuousClock.now
            defer { print("test time: \(Self.seconds(start, .now)) s \(test.id) at \(Self.seconds(origin, start)) s") }
            try await function()
        }
    }

    /// The seconds from `start` to `end`, to the millisecond.
    static func seconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> String {
        let took = (end - start).components
        return String(format: "%.3f", Double(took.seconds) + Double(took.attoseconds) / 1e18)
    }
}

extension Trait where Self == BlockingThreadsTrait {
    /// The suite's tests block their thread (on processes, pipes, `eventually`): they run on
    /// threads of their own, `BlockingThreadPool.shared`. Every integration suite carries it:
    ///
    ///     @Suite(.blockingThreads, .timeLimit(.minutes(5))) struct FreezerTests { … }
    public static var blockingThreads: Self { Self(computes: false) }

    /// The suite's tests compute for seconds without a suspension (the fuzz tests): they run one
    /// at a time on a thread of their own, `BlockingThreadPool.computing`. On the cooperative
    /// pool two of them held it whole, and Swift Testing started no other test until they ended
    /// (the integration tests began 20 s into the run); on the blocking threads they took all
    /// eight at the start. One thread spends the same CPU without holding back the tests that wait.
    public static var computing: Self { Self(computes: true) }
}
