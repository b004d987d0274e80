import _SuperviseCShims
#if canImport(Glibc)
import Glibc
#endif

/// Signal numbers as people read them.
public enum SignalName {
    /// `SIGQUIT`, `SIGRTMIN+3`, or `signal N` for a number with no name.
    public static func describe(_ signal: Int32) -> String {
        let realTime = realTimeSignals
        if realTime.contains(signal) { return "SIGRTMIN+\(signal - realTime.lowerBound)" }
        guard let abbreviation = _supervise_signal_abbreviation(signal) else { return "signal \(signal)" }
        return "SIG" + String(cString: abbreviation)
    }

    /// The real-time signals the C library leaves to programs (SIGRTMIN to SIGRTMAX).
    public static var realTimeSignals: ClosedRange<Int32> {
        __libc_current_sigrtmin()...__libc_current_sigrtmax()
    }
}
