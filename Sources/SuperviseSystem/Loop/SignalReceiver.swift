import _SuperviseCShims
#if canImport(Glibc)
import Glibc
#endif

/// The signals the supervisor acts on, received through a signalfd.
///
/// They are blocked in the supervisor (it has one thread), so they arrive only here, and none
/// has its default action: as PID 1 none would have one anyway, and elsewhere many would kill
/// the supervisor with no clean-up. The spawner gives every child an empty mask and default
/// handlers again.
public final class SignalReceiver {
    public let fd: Int32
    private var previousMask = sigset_t()

    /// Blocks `signals` and opens the signalfd that reads them; SIGPIPE is ignored.
    public init(taking signals: [Int32]) throws(SupervisorError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        sigprocmask(SIG_BLOCK, &mask, &previousMask)
        signal(SIGPIPE, SIG_IGN)
        fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else {
            throw SupervisorError(.system, "cannot receive signals: \(describeErrno(errno))", errno: errno)
        }
    }

    deinit { close(fd) }

    /// Every signal pending now, in arrival order (SIGCHLD coalesced by the kernel).
    public func drain() -> [Int32] {
        var signals: [Int32] = []
        var info = signalfd_siginfo()
        while retryingOnInterrupt({ read(fd, &info, MemoryLayout<signalfd_siginfo>.size) }) == MemoryLayout<signalfd_siginfo>.size {
            signals.append(Int32(info.ssi_signo))
        }
        return signals
    }
}
