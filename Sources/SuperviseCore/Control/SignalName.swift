import _SuperviseCShims
#if canImport(Glibc)
import Glibc
#endif

/// The signals a child may be stopped with, by name (`TERM`, `SIGTERM`) or number.
public enum SignalName {
    static let known: [(name: String, number: Int32)] = [
        ("HUP", SIGHUP), ("INT", SIGINT), ("QUIT", SIGQUIT), ("ABRT", SIGABRT), ("KILL", SIGKILL),
        ("USR1", SIGUSR1), ("USR2", SIGUSR2), ("ALRM", SIGALRM), ("TERM", SIGTERM), ("WINCH", SIGWINCH),
        ("PWR", SIGPWR),
    ]

    /// `SIGQUIT`, `SIGRTMIN+3`, or `signal N` for a number with no name.
    public static func describe(_ signal: Int32) -> String {
        let realTime = SignalTable.realTimeSignals
        if realTime.contains(signal) { return "SIGRTMIN+\(signal - realTime.lowerBound)" }
        guard let abbreviation = _supervise_signal_abbreviation(signal) else { return "signal \(signal)" }
        return "SIG" + String(cString: abbreviation)
    }

    /// The signal `text` names: `TERM`, `SIGTERM`, `term` or `15`.
    public static func parse(_ text: String) throws(UsageError) -> Int32 {
        if let number = Int32(text), (1..<65).contains(number), number != SIGSTOP, number != SIGCONT { return number }
        var name = text.uppercased()
        if name.hasPrefix("SIG") { name.removeFirst(3) }
        if let match = known.first(where: { $0.name == name }) { return match.number }
        let names = known.map(\.name).joined(separator: ", ")
        throw UsageError("unknown signal '\(ControlText.excerpt(text))': use a name (\(names)) or a number from 1 to 64 "
            + "other than STOP and CONT")
    }
}
