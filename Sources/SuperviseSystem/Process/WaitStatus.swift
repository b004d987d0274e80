import SuperviseLifecycle

extension ChildTermination {
    /// Decodes a status from `waitpid` (called without `WUNTRACED`/`WCONTINUED`).
    public init(waitStatus: Int32) {
        let signal = waitStatus & 0x7f
        self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(signal)
    }

    /// "exited with 7" or "killed by SIGKILL (9)".
    public var summary: String {
        switch self {
        case .exited(let code):
            return "exited with \(code)"
        case .signaled(let signal):
            return "killed by \(SignalName.describe(signal)) (\(signal))"
        }
    }
}
