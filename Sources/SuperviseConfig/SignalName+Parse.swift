import SuperviseSystem
import Glibc

/// The stop signal a user names, by name (`TERM`, `SIGTERM`) or number.
extension SignalName {
    /// The signals a stop signal may be given by name.
    static let stopSignals: [(name: String, number: Int32)] = [
        ("HUP", SIGHUP), ("INT", SIGINT), ("QUIT", SIGQUIT), ("ABRT", SIGABRT), ("KILL", SIGKILL),
        ("USR1", SIGUSR1), ("USR2", SIGUSR2), ("ALRM", SIGALRM), ("TERM", SIGTERM), ("WINCH", SIGWINCH),
        ("PWR", SIGPWR),
    ]

    /// The signal `text` names: `TERM`, `SIGTERM`, `term` or `15`.
    public static func parse(_ text: String) throws(UsageError) -> Int32 {
        if let number = Int32(text), (1..<65).contains(number), number != SIGSTOP, number != SIGCONT { return number }
        var name = text.uppercased()
        if name.hasPrefix("SIG") { name.removeFirst(3) }
        if let match = stopSignals.first(where: { $0.name == name }) { return match.number }
        let names = stopSignals.map(\.name).joined(separator: ", ")
        throw UsageError("unknown signal '\(ControlText.excerpt(text))': use a name (\(names)) or a number from 1 to 64 "
            + "other than STOP and CONT")
    }
}

/// Any signal a user names, for `signal NAME SIG` and `--signal SIG=ACTION`.
extension SignalName {
    /// The signal `text` names: any name `describe` gives, with or without `SIG`, in any case
    /// (`usr1`, `SIGRTMIN+2`), or a number from 1 to 64.
    public static func parseAny(_ text: String) throws(UsageError) -> Int32 {
        if let number = Int32(text), (1..<65).contains(number) { return number }
        var name = text.uppercased()
        if !name.hasPrefix("SIG") { name = "SIG" + name }
        if let number = (Int32(1)..<65).first(where: { describe($0) == name }) { return number }
        throw UsageError("unknown signal '\(ControlText.excerpt(text))': use a name (TERM, USR1, RTMIN+2, ...) "
            + "or a number from 1 to 64")
    }
}
