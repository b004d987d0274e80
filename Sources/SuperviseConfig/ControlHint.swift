import SuperviseLifecycle
import SuperviseSystem
import Glibc

/// When the supervisor says, in one line, how to run a child that wanted the terminal
/// (docs/cli.md, "Terminals and shells"). Under `--control stdin` at a terminal the supervisor
/// reads the terminal for its commands and a child's stdin is /dev/null: a shell or python3
/// exits at once on the end of its input, and a program that opens /dev/tty (vim, less,
/// `bash -i`) is stopped by the terminal (SIGTTIN, SIGTTOU), as its group is not the foreground.
public enum ControlHint {
    /// A run shorter than this exited at once.
    public static let atOnce: Duration = .seconds(1)

    /// How to run it instead.
    static let advice = "to give it the terminal, run it with --control none "
        + "(commands then come from --socket with supervise ctl, or from signals)"

    /// The hint for a child's main process stopped by `signal`, if it was the terminal's stop;
    /// `stdinControlAtTerminal`: `--control stdin`, and stdin is a terminal.
    public static func stopped(by signal: Int32, stdinControlAtTerminal: Bool) -> String? {
        guard stdinControlAtTerminal, signal == SIGTTIN || signal == SIGTTOU else { return nil }
        return "stopped by the terminal (\(SignalName.describe(signal))), which supervise reads for its commands; " + advice
    }

    /// The hint for a run that exited `ran` after its launch, if that was at once.
    public static func exited(after ran: Duration, stdinControlAtTerminal: Bool) -> String? {
        guard stdinControlAtTerminal, ran < atOnce else { return nil }
        return "exited \(ran.formatted) after it started, with /dev/null as its stdin (supervise reads the "
            + "terminal for its commands); if it is interactive (a shell, python3, an editor), " + advice
    }
}
