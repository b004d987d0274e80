import SuperviseSystemCall
import Glibc
import SuperviseLifecycle
import SystemPackage
import _SuperviseCShims

/// This program run again as a helper process (`/proc/self/exe`, which the kernel resolves to
/// the very binary running, whatever its path now names), for work the supervisor keeps out of
/// its own memory: drawing the picture of a report (docs/report.md).
///
/// The helper gets `stdin` as fd 0, the supervisor's stdout and stderr, no other descriptor,
/// an empty signal mask and every signal at its default action; it shares nothing else with
/// the supervisor. It is waited for at most `timeout`, then killed.
public enum HelperProcess {
    /// How a helper ended.
    public enum Outcome: Equatable, Sendable {
        /// It exited (`.exited(0)` is success) or a signal ended it.
        case ended(ChildTermination)
        /// It was still running after the timeout, and was killed.
        case timedOut
        /// It could not be started: why, as a sentence.
        case notStarted(String)
    }

    /// Runs `program` (this program when not given) with `arguments` (argv[0] first) and waits for
    /// it, up to `timeout`.
    public static func run(_ arguments: [String], stdin: Int32, timeout: Duration,
                           program: String = "/proc/self/exe") -> Outcome {
        let pid: pid_t
        switch start(program, arguments, stdin: stdin) {
        case .success(let started): pid = started
        case .failure(let error): return .notStarted(error.sentenceText)
        }
        var status: Int32 = 0
        let ended = waitBriefly(upTo: timeout) {
            switch valueOrErrno({ waitpid(pid, &status, WNOHANG) }) {
            case .success(let reaped): return reaped == pid
            case .failure: return true  // ECHILD: someone else reaped it
            }
        }
        guard ended else {
            // Ours and not reaped by us: it fails only if someone else reaped it, and then it is gone.
            _ = valueOrErrno { kill(pid, SIGKILL) }
            _ = valueOrErrno { waitpid(pid, &status, 0) }
            return .timedOut
        }
        return .ended(ChildTermination(waitStatus: status))
    }

    private static func start(_ program: String, _ arguments: [String], stdin: Int32) -> Result<pid_t, Errno> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        if case .failure(let error) = statusOrErrno({ posix_spawn_file_actions_init(&actions) }) { return .failure(error) }
        // Destroying what was initialised can't fail.
        defer { _ = statusOrErrno { posix_spawn_file_actions_destroy(&actions) } }
        if case .failure(let error) = statusOrErrno({ posix_spawnattr_init(&attributes) }) { return .failure(error) }
        defer { _ = statusOrErrno { posix_spawnattr_destroy(&attributes) } }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        let argv = CStringArray(arguments)
        var pid: pid_t = 0
        return statusOrErrno { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
            .flatMap { statusOrErrno { _supervise_spawn_close_from(&actions, 3) } }
            .flatMap { statusOrErrno { posix_spawnattr_setsigmask(&attributes, &none) } }
            .flatMap { statusOrErrno { posix_spawnattr_setsigdefault(&attributes, &all) } }
            .flatMap { statusOrErrno { posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) } }
            .flatMap { statusOrErrno { posix_spawn(&pid, program, &actions, &attributes, argv.pointers, environ) } }
            .map { pid }
    }
}
