/// Where the process is in its lifecycle, as `UIApplication.State`.
public enum ApplicationState: Sendable, Equatable {
    /// In the foreground and receiving events (after `did-become-active`).
    case active
    /// In the foreground but in transition (launching, after `will-resign-active` or
    /// `will-enter-foreground`).
    case inactive
    /// In the background (after `did-enter-background`, or launched in the background).
    case background
}
