import SuperviseClient
import SuperviseProtocol

/// A delegate that logs every callback, and may begin a task when entering the background.
final class RecordingDelegate: SuperviseApplicationDelegate {
    let log = Recorder()
    let beginsTaskInBackground: Bool

    init(beginsTaskInBackground: Bool = false) {
        self.beginsTaskInBackground = beginsTaskInBackground
    }

    func application(_ application: SuperviseApplication, didReceive event: Event) {
        log.record("event: \(event.line.dropLast())")
    }

    func application(_ application: SuperviseApplication, didFinishLaunchingIn state: LaunchState) {
        log.record("didFinishLaunching \(state)")
    }

    func applicationDidBecomeActive(_ application: SuperviseApplication) {
        log.record("didBecomeActive")
    }

    func applicationWillResignActive(_ application: SuperviseApplication) {
        log.record("willResignActive")
    }

    func applicationDidEnterBackground(_ application: SuperviseApplication) {
        log.record("didEnterBackground")
        if beginsTaskInBackground { _ = application.beginBackgroundTask(withName: "from-handler") }
    }

    func application(_ application: SuperviseApplication, handleEventOfKind kind: String, text: String?) {
        log.record("handleEvent \(kind) \(text ?? "-")")
        if beginsTaskInBackground { _ = application.beginBackgroundTask(withName: "from-event") }
    }

    func applicationWillEnterForeground(_ application: SuperviseApplication) {
        log.record("willEnterForeground")
    }

    func applicationWillTerminate(_ application: SuperviseApplication, grace: Duration) {
        log.record("willTerminate \(grace)")
    }

    func application(_ application: SuperviseApplication, didReceive error: RequestError) {
        log.record("error \(error.code.rawValue) \(error.request)")
    }

    func applicationDidReceiveMemoryWarning(_ application: SuperviseApplication, level: MemoryWarning) {
        log.record("memoryWarning \(level.rawValue)")
    }
}
