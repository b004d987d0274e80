import SuperviseSystemCall
import Glibc
import SuperviseLifecycle

/// A change the kernel reports about a child of the supervisor (or an orphan reparented to it).
public enum ChildStatusChange: Sendable {
    /// It exited or was killed, and is reaped: its pid is free again.
    case terminated(pid: Int32, ChildTermination)
    /// It was stopped by `signal`.
    case stopped(pid: Int32, signal: Int32)
    /// It was continued by SIGCONT.
    case continued(pid: Int32)
}

/// Collects the supervisor's children's status changes, without waiting (`waitpid(-1, WNOHANG)`).
public enum Reaper {
    /// The next status change the kernel has for any child, or `nil` when none is waiting now.
    public static func next() -> ChildStatusChange? {
        var status: Int32 = 0
        guard case .success(let pid) = valueOrErrno({ waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED) }),
              pid > 0
        else { return nil }
        if status & 0xff == 0x7f { return .stopped(pid: pid, signal: (status >> 8) & 0xff) }  // WIFSTOPPED, WSTOPSIG
        if status == 0xffff { return .continued(pid: pid) }  // WIFCONTINUED
        return .terminated(pid: pid, ChildTermination(waitStatus: status))
    }

    /// Reaps every child left, waiting up to `timeout` for those still exiting: the
    /// supervisor's last act, so that no zombie of a descendant it adopted is left behind
    /// (as pid 1, nothing else would reap it). Returns at once when it has no child.
    public static func reapAll(waitingUpTo timeout: Duration) {
        _ = waitBriefly(upTo: timeout) {
            while true {
                var status: Int32 = 0
                switch valueOrErrno({ waitpid(-1, &status, WNOHANG) }) {
                case .success(let pid) where pid > 0: continue
                // Children are left that have not exited yet (dying of the teardown's SIGKILL).
                case .success: return false
                case .failure: return true  // ECHILD: none is left
                }
            }
        }
    }
}
