// A worker that follows the iOS background rules with SuperviseClient, the way an iOS app
// uses UIApplication: a delegate for the lifecycle, and a background task around the work
// that must finish after the app leaves the foreground.
//
// On did-enter-background it saves its state under a background task (WORK_SECONDS,
// default 1) and returns at once; when the save ends, so does the task, and supervise
// suspends it. If the save outlasts the background limit, the expiring activity is told
// so, cancels the save, and its task ends. On will-terminate it exits. It keeps a cache
// (CACHE_MIB, default 8 MiB) that it frees on its first memory warning, as an iOS app frees
// caches in applicationDidReceiveMemoryWarning.
//
// REFRESH_EVERY (seconds; unset: never) makes it a BackgroundTasks app too, as one with a
// BGAppRefreshTask: it registers a launch handler for the task `refresh` with
// BackgroundTaskScheduler and submits an AppRefreshTaskRequest that far ahead. Parked, it is
// woken for it in the background; it refreshes for REFRESH_SECONDS (default 0.2) in a
// detached task, completes the task (with failure if its expiration handler stopped it
// first), and submits the next, as an iOS app resubmits from its handler.
//
//   swift build --product swift-worker-example
//   supervise --aware --window 0.5 -- "$(swift build --show-bin-path)/swift-worker-example"
//
// (--aware: SuperviseApplication.launch says hello, so a run where it does not fails.)
//
// Not `supervise -- swift run swift-worker-example`: the child would be `swift`, and the
// worker, its sub-process, would find SUPERVISE_PID is not its pid and run unsupervised.
import Glibc
import SuperviseClient
import SuperviseProtocol
import Synchronization

/// Prints one line to stderr, where supervise prefixes and forwards it.
func log(_ message: String) {
    var line = "swift-worker: \(message)\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Work (a save, a refresh) that takes `seconds` and can be cancelled from another thread.
final class Job: Sendable {
    private let cancelled = Mutex(false)

    /// Waits out the work in 50 ms steps; returns false when it was cancelled first.
    func run(seconds: Double) -> Bool {
        var remaining = seconds
        while remaining > 0 {
            if cancelled.withLock({ $0 }) { return false }
            usleep(50_000)
            remaining -= 0.05
        }
        return true
    }

    func cancel() { cancelled.withLock { $0 = true } }
}

final class Worker: SuperviseApplicationDelegate {
    let workSeconds: Double
    /// What the worker can rebuild, so frees under memory pressure: every page touched.
    let cache: Mutex<[UInt8]>

    init(workSeconds: Double, cacheMiB: Int) {
        self.workSeconds = workSeconds
        cache = Mutex([UInt8](repeating: 1, count: cacheMiB << 20))
    }

    func application(_ app: SuperviseApplication, didFinishLaunchingIn state: LaunchState) {
        log("launched in the \(state.rawValue)")
    }

    func applicationDidBecomeActive(_ app: SuperviseApplication) {
        log("active")
    }

    func applicationDidEnterBackground(_ app: SuperviseApplication) {
        log("in the background: at most \(Int(app.backgroundTimeRemaining)) s left; saving state")
        let save = Job()
        app.performExpiringActivity(withReason: "save state") { [workSeconds] expired in
            if expired {
                log("background time is up: cancelling the save")
                save.cancel()
                return
            }
            log(save.run(seconds: workSeconds) ? "state saved" : "save cancelled")
        }   // the block's return ends its background task
    }   // returning sends `done SEQ`; the open task keeps the worker running

    func application(_ app: SuperviseApplication, handleEventOfKind kind: String, text: String?) {
        log("event \(kind) \(text ?? "")")
    }

    func applicationDidReceiveMemoryWarning(_ app: SuperviseApplication, level: MemoryWarning) {
        let freed = cache.withLock { cache in
            defer { cache = [] }
            return cache.count
        }
        log("memory warning (\(level.rawValue)): freed \(freed >> 20) MiB of cache")
    }

    func applicationWillEnterForeground(_ app: SuperviseApplication) {
        log("coming back to the foreground")
    }

    func applicationWillTerminate(_ app: SuperviseApplication, grace: Duration) {
        log("terminating")
        exit(0)
    }
}

/// The scheduled refresh: registered once, submitted again each time it completes.
struct Refresh: Sendable {
    let every: Double
    let seconds: Double
    let scheduler: BackgroundTaskScheduler

    /// Registers the launch handler (before the first submission can start it) and submits.
    func start() {
        scheduler.register(forTaskWithIdentifier: "refresh") { task in
            log("woken for \(task.kind.rawValue) task \(task.identifier) (\(Int(task.limit / .milliseconds(1))) ms)")
            let refresh = Job()
            task.expirationHandler = { refresh.cancel() }
            // The launch handler returns at once; the task keeps the worker running.
            Task.detached {
                let finished = refresh.run(seconds: seconds)
                log(finished ? "refresh finished" : "refresh stopped by expire")
                task.setTaskCompleted(success: finished)
                submit()
            }
        }
        submit()
    }

    func submit() {
        do {
            try scheduler.submit(AppRefreshTaskRequest(identifier: "refresh", earliestBeginDate: .milliseconds(Int64(every * 1000))))
        } catch {
            log("the refresh was not scheduled: \(error)")
        }
    }
}

func setting(_ name: String) -> Double? { getenv(name).flatMap { Double(String(cString: $0)) } }

let workSeconds = setting("WORK_SECONDS") ?? 1
let cacheMiB = getenv("CACHE_MIB").flatMap { Int(String(cString: $0)) } ?? 8
let app = SuperviseApplication.launch(delegate: Worker(workSeconds: workSeconds, cacheMiB: cacheMiB))
if !app.isSupervised { log("not running under supervise; nothing will suspend this process") }
if app.isSupervised, let every = setting("REFRESH_EVERY") {
    Refresh(every: every, seconds: setting("REFRESH_SECONDS") ?? 0.2, scheduler: app.taskScheduler).start()
}
while true { pause() }
