import SuperviseSystemCall
import _SuperviseCShims
import Glibc

/// The signals the supervisor acts on, received through a signalfd.
///
/// They are blocked in the supervisor (it has one thread), so they arrive only here, and none
/// has its default action: as PID 1 none would have one anyway, and elsewhere many would kill
/// the supervisor with no clean-up. The spawner gives every child an empty mask and default
/// handlers again.
public final class SignalReceiver {
    public let fd: Int32

    /// Blocks `signals` and opens the signalfd that reads them; SIGPIPE is ignored.
    public init(taking signals: [Int32]) throws(SupervisorError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        let received = valueOrErrno { sigprocmask(SIG_BLOCK, &mask, nil) }
            .flatMap { _ in valueOrErrno { sigaction(SIGPIPE, &ignore, nil) } }
            .flatMap { _ in valueOrErrno { signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) } }
        switch received {
        case .success(let fd): self.fd = fd
        case .failure(let error):
            throw SupervisorError(.system, "cannot receive signals: \(error.sentenceText)", errno: error.rawValue)
        }
    }

    deinit { Descriptor.close(fd) }

    /// Every signal pending now, in arrival order (SIGCHLD coalesced by the kernel).
    public func drain() -> [Int32] {
        var signals: [Int32] = []
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while case .success(size) = valueOrErrno({ read(fd, &info, size) }) {
            signals.append(Int32(info.ssi_signo))
        }
        return signals
    }
}
