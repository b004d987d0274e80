import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// The supervisor's own process: its pid, the environment it inherited, its place as a reaper.
public enum CurrentProcess {
    /// The supervisor's pid.
    public static var id: Int32 { getpid() }

    /// The arguments the supervisor was started with, the first its own name: `main`'s `argv`,
    /// saved before `main` runs. Swift's `CommandLine.arguments` finds them through
    /// `/proc/self/maps` and is empty where `/proc` is not mounted (a bare chroot).
    public static let arguments: [String] = {
        var count: Int32 = 0
        guard let vector = _supervise_arguments(&count) else { return [] }
        return (0..<Int(count)).map { vector[$0].map { String(cString: $0) } ?? "" }
    }()

    /// The environment the supervisor was started with, as `KEY=VALUE` entries in their order.
    public static var environment: [String] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            entries.append(String(cString: entry))
            index += 1
        }
        return entries
    }

    /// The user the supervisor acts as (its effective uid): 0 for root.
    public static var effectiveUserID: UInt32 { geteuid() }

    /// The supervisor's working directory, nil when it has none (removed, or out of reach).
    public static var workingDirectory: String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    /// Ends the supervisor with `status`, flushing the C library's buffers (`exit(3)`).
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// Which of `signals` the supervisor was started with ignored (SIG_IGN), as `nohup` leaves
    /// SIGHUP and a non-interactive shell leaves SIGINT and SIGQUIT for a job it runs in the background.
    public static func ignoredSignals(among signals: [Int32]) -> Set<Int32> {
        Set(signals.filter { _supervise_signal_is_ignored($0) != 0 })
    }

    /// Makes the supervisor the reaper of its orphaned descendants (`PR_SET_CHILD_SUBREAPER`),
    /// so that they are reparented to it rather than to init.
    @discardableResult
    public static func becomeSubreaper() -> Result<Void, Errno> {
        valueOrErrno { _supervise_become_subreaper() }.map { _ in () }
    }
}
