import SuperviseLifecycle
import SuperviseProtocol
/// One command read from the supervisor's standard input.
public enum ControlCommand: Equatable, Sendable {
    /// `background [NAME]`: move to the background.
    case background(ControlTarget)
    /// `foreground [NAME]`: bring to the foreground.
    case foreground(ControlTarget)
    /// `terminate [NAME]`: terminate gracefully.
    case terminate(ControlTarget)
    /// `event NAME KIND [TEXT]`: resume in the background to handle an event.
    case event(ControlTarget, kind: String, text: String?)
    /// `status`: print one JSON line per child.
    case status
    /// `wait STATE [NAME] [timeout=DURATION]`: hold the next commands until the state is reached.
    case wait(state: ChildState, target: ControlTarget, timeout: Duration)
    /// `sleep DURATION`: hold the next commands for that long.
    case sleep(Duration)
    /// `signal NAME SIG [main|group|tree]`: send a signal to the child's main process (or its
    /// process group, or every process of its tree).
    case signal(ControlTarget, signal: Int32, to: SignalTarget)
    /// `start [NAME]`: launch a child that has exited or is not running.
    case start(ControlTarget)
    /// `restart [NAME]`: terminate gracefully, then start.
    case restart(ControlTarget)
    /// `log-level LEVEL`: change the supervisor's log level.
    case logLevel(String)
    /// `version`: the supervisor's version and protocol.
    case version
    /// `schedules`: print one JSON line per scheduled task, pending or running.
    case schedules
    /// `run-task NAME ID`: run the child's pending scheduled task now, whatever its due time
    /// and conditions (for testing, as Xcode's `_simulateLaunchForTaskWithIdentifier`).
    case runTask(ControlTarget, id: TaskID)

    /// The children whose state the command reads or acts on, each looked at first for what
    /// someone else did to it while suspended; `nil` for a command that reads no child's state
    /// (a `signal` goes to the processes as they are).
    public var looksAt: ControlTarget? {
        switch self {
        case .background(let target), .foreground(let target), .terminate(let target), .event(let target, _, _),
             .wait(_, let target, _), .start(let target), .restart(let target), .runTask(let target, _):
            target
        case .status: .all
        case .sleep, .signal, .logLevel, .version, .schedules: nil
        }
    }
}
