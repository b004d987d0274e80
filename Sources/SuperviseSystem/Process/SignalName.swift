import _SuperviseCShims
import Glibc

/// Signal numbers as people read them.
public enum SignalName {
    /// `SIGQUIT`, `SIGRTMIN+3`, or `signal N` for a number with no name. Signal 29 is `SIGIO`,
    /// as the docs and `--help` name it (the C library calls it SIGPOLL, its System V name).
    public static func describe(_ signal: Int32) -> String {
        let realTime = realTimeSignals
        if realTime.contains(signal) { return "SIGRTMIN+\(signal - realTime.lowerBound)" }
        if signal == SIGIO { return "SIGIO" }
        guard let abbreviation = _supervise_signal_abbreviation(signal) else { return "signal \(signal)" }
        return "SIG" + String(cString: abbreviation)
    }

    /// The real-time signals the C library leaves to programs (SIGRTMIN to SIGRTMAX).
    public static var realTimeSignals: ClosedRange<Int32> {
        __libc_current_sigrtmin()...__libc_current_sigrtmax()
    }
}

/// The signal numbers the layers above name, so that they need no Glibc of their own.
public enum SignalNumber {
    /// SIGCHLD: a child exited, stopped or continued (``Reaper`` collects it).
    public static let childStatusChanged = SIGCHLD
    /// SIGCONT: continues a stopped process.
    public static let continueStopped = SIGCONT
}
