import SuperviseProtocol

/// Receives the lifecycle events of a ``SuperviseApplication``, as `UIApplicationDelegate`.
///
/// Every method has an empty default implementation. They are called one at a time, in the
/// order the supervisor sent the events, on the library's reader thread: return promptly,
/// and start a background task for longer work. With
/// ``BackgroundEntryCompletion/automatic`` completion, returning from
/// ``applicationDidEnterBackground(_:)`` is what tells the supervisor the handler is done.
public protocol SuperviseApplicationDelegate: Sendable {
    /// Every event, including `expire` and `error`, before the specific method below.
    func application(_ application: SuperviseApplication, didReceive event: Event)
    /// `did-finish-launching`: the process starts in the foreground or the background.
    func application(_ application: SuperviseApplication, didFinishLaunchingIn state: LaunchState)
    /// `did-become-active`: the process is in the foreground.
    func applicationDidBecomeActive(_ application: SuperviseApplication)
    /// `will-resign-active`: the first step of a move to the background.
    func applicationWillResignActive(_ application: SuperviseApplication)
    /// `did-enter-background`: the process is in the background; return within the window
    /// the supervisor gives (5 s by default), and begin background tasks for longer work.
    func applicationDidEnterBackground(_ application: SuperviseApplication)
    /// `event`: the process was resumed in the background to handle an event; called right
    /// after ``applicationDidEnterBackground(_:)`` for the same entry.
    func application(_ application: SuperviseApplication, handleEventOfKind kind: String, text: String?)
    /// `will-enter-foreground`: the first step of a return to the foreground.
    func applicationWillEnterForeground(_ application: SuperviseApplication)
    /// `will-terminate`: exit within `grace`. Also called with a zero grace when the
    /// supervisor goes away (end of file on the events channel).
    func applicationWillTerminate(_ application: SuperviseApplication, grace: Duration)
    /// `error`: the supervisor rejected a request.
    func application(_ application: SuperviseApplication, didReceive error: RequestError)
    /// `memory-warning LEVEL`: memory is under pressure, as UIKit's
    /// `applicationDidReceiveMemoryWarning`; free caches and whatever can be rebuilt. `level`
    /// says how hard (`moderate`, `low`, `critical` in the foreground; `background`, then
    /// `complete` in the background) — see protocol.md's *Memory pressure*.
    func applicationDidReceiveMemoryWarning(_ application: SuperviseApplication, level: MemoryWarning)
}

extension SuperviseApplicationDelegate {
    public func application(_ application: SuperviseApplication, didReceive event: Event) {}
    public func application(_ application: SuperviseApplication, didFinishLaunchingIn state: LaunchState) {}
    public func applicationDidBecomeActive(_ application: SuperviseApplication) {}
    public func applicationWillResignActive(_ application: SuperviseApplication) {}
    public func applicationDidEnterBackground(_ application: SuperviseApplication) {}
    public func application(_ application: SuperviseApplication, handleEventOfKind kind: String, text: String?) {}
    public func applicationWillEnterForeground(_ application: SuperviseApplication) {}
    public func applicationWillTerminate(_ application: SuperviseApplication, grace: Duration) {}
    public func application(_ application: SuperviseApplication, didReceive error: RequestError) {}
    public func applicationDidReceiveMemoryWarning(_ application: SuperviseApplication, level: MemoryWarning) {}
}
