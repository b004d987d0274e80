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
    /// The way into these threads for a serialized suite's tests: their jobs are taken first.
    public let ahead: Ahead
    private let queue: JobQueue

    /// Starts `width` threads (8 MB stacks, as the main thread's) named `name-INDEX` that wait for jobs.
    public init(width: Int, name: String) {
        self.width = width
        queue = JobQueue()
        ahead = Ahead(queue: queue)
        for index in 0..<width {
            // Named from inside, in at most 15 bytes (`block-test-999`): otherwise the kernel
            // keeps the name of the thread that made it, often a cooperative thread's. Not with
            // `Thread.current.name`: Foundation names the kernel's thread only once `start()` has
            // noted it, which the new thread can outrun (the first test then read its creator's name).
            let thread = Thread { [self] in
                try? "\(name)-\(index)".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                runJobs()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        queue.put(UnownedJob(job), ahead: false)
    }

    /// A thread's life: take the oldest job, `ahead`'s first, run it (to its end or its next
    /// suspension) on the executor it was enqueued on, repeat.
    private func runJobs() {
        while true {
            let (job, isAhead) = queue.take()
            job.runSynchronously(on: isAhead ? ahead.asUnownedTaskExecutor() : asUnownedTaskExecutor())
        }
    }

    /// The same threads, taken before the pool's own jobs. A serialized suite runs here once it
    /// has started in its turn, so that each next test of it starts as the one before ends,
    /// rather than queueing behind every test enqueued meanwhile.
    public final class Ahead: TaskExecutor, @unchecked Sendable {
        private let queue: JobQueue

        init(queue: JobQueue) { self.queue = queue }

        public func enqueue(_ job: consuming ExecutorJob) {
            queue.put(UnownedJob(job), ahead: true)
        }
    }
}

/// The jobs waiting for a pool's threads, in two lines: `ahead`'s, taken first, and the rest.
final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var aheadJobs = JobLine(), jobs = JobLine()

    func put(_ job: UnownedJob, ahead: Bool) {
        condition.lock()
        if ahead { aheadJobs.append(job) } else { jobs.append(job) }
        condition.signal()
        condition.unlock()
    }

    /// The oldest job of the first line that has one, and whether it came from `ahead`'s;
    /// waits for one.
    func take() -> (UnownedJob, ahead: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while aheadJobs.isEmpty && jobs.isEmpty { condition.wait() }
        return aheadJobs.isEmpty ? (jobs.removeFirst(), false) : (aheadJobs.removeFirst(), true)
    }

    /// Jobs oldest first; the storage is reused once every job was taken.
    private struct JobLine {
        private var jobs: [UnownedJob] = []
        private var next = 0

        var isEmpty: Bool { next == jobs.count }

        mutating func append(_ job: UnownedJob) { jobs.append(job) }

        /// The oldest job; not to be called when empty.
        mutating func removeFirst() -> UnownedJob {
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            return job
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

    /// Whether the task runs a test of a `.serialized` suite (which `Test.traits` of the test
    /// itself does not say).
    @TaskLocal static var inSerializedSuite = false

    /// A scope for each test case, and one for a `.serialized` suite around its tests (Swift
    /// Testing gives a recursive trait's suite none by default).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? (Self.isSerialized(test) ? self : nil) : (testCase == nil ? nil : self)
    }

    static func isSerialized(_ suite: Test) -> Bool {
        suite.traits.contains { $0 is ParallelizationTrait }
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let pool = computes ? BlockingThreadPool.computing : BlockingThreadPool.shared
        guard test.isSuite else {
            let executor: any TaskExecutor = Self.inSerializedSuite ? pool.ahead : pool
            return try await withTaskExecutorPreference(executor) { try await timed(test, function) }
        }
        // A serialized suite starts in its turn, oldest first, then runs its tests ahead.
        try await withTaskExecutorPreference(pool) {
            try await Self.$inSerializedSuite.withValue(true) {
                try await withTaskExecutorPreference(pool.ahead) { try await function() }
            }
        }
    }

    /// Runs `function`, printing its time with `SUITE_TIMES=1`.
    func timed(_ test: Test, _ function: @Sendable () async throws -> Void) async throws {
        guard Self.printsTimes else { return try await function() }
        let origin = Self.firstStart, start = ContinuousClock.now
        defer { print("test time: \(Self.seconds(start, .now)) s \(test.id) at \(Self.seconds(origin, start)) s") }
        try await function()
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
