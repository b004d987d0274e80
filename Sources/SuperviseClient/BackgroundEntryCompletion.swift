/// Who tells the supervisor that the handler of a background entry has returned
/// (the `done SEQ` request).
public enum BackgroundEntryCompletion: Sendable, Equatable {
    /// The library does, as UIKit does when `applicationDidEnterBackground(_:)` returns:
    /// right after the delegate's ``SuperviseApplicationDelegate/applicationDidEnterBackground(_:)``
    /// (and, for an event, ``SuperviseApplicationDelegate/application(_:handleEventOfKind:text:)``)
    /// return, or at once when there is no delegate.
    case automatic
    /// The app does, by calling ``SuperviseApplication/completeBackgroundEntry(_:)`` with the
    /// entry's sequence number, for example after an `events()` consumer has handled it.
    case manual
}
