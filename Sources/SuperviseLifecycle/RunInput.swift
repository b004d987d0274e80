/// What happens to the run as a whole, for ``RunCore/handle(_:)``. A child is named by its
/// place in the run's list of children.
public enum RunInput: Equatable, Sendable {
    /// The supervisor received `signal` (called `name`), and the signal table says `order`
    /// (`nil`: it says nothing of it); `routine` for one that comes as a matter of course (a
    /// terminal's resize).
    case signal(Int32, name: String, order: SignalOrder?, routine: Bool, children: [RunChild])
    /// No freezer could be had (`message` says why): nothing is launched.
    case freezersUnavailable(message: String)
    /// The freezer unit of the child `name` could not be made: it is not launched.
    case unitFailed(name: String, message: String)
    /// A run of `child` could not be spawned: the command can't be run (`commandStatus` 127 or
    /// 126, the child's own failure), or `nil` when the supervisor could not start it.
    case spawnFailed(child: Int, name: String, commandStatus: Int32?, message: String)
    /// A run of the child `name` exited, as its core recorded.
    case childExited(name: String, ExitRecord)
    /// The command line `text`, from `source`, is not run at all (``CommandRejection``).
    case commandRejected(text: String, CommandRejection, from: CommandSource)
    /// The `wait` command `text`, from `source`, failed for `reason`, waiting for `children`.
    case waitFailed(text: String, reason: String, children: [String], from: CommandSource)
    /// The child at `child` joined the run (its freezer unit made): its first run may start.
    case joined(child: Int, RunChild)
    /// `hint`, a line on how to give the child at `child` the terminal (`ControlHint`), applies.
    case hint(String, child: Int)
    /// A result file (`--junit`, `--report`, `--html`) could not be written.
    case resultFileFailed
    /// Every child is done and the run is over: the children as they ended.
    case ended([RunChild])
    /// The job stops on `signal` (called `name`), for `cause` (a terminal's Ctrl-Z, as
    /// ``TerminalJobControl`` took it), the supervisor after its children.
    case jobStopping(signal: Int32, name: String, cause: String, children: [RunChild])
    /// The supervisor was continued after a stop of the job (`fg` or `bg`).
    case jobContinued
    /// Every status the kernel had was collected (exits, stops, continues, orphans): the
    /// children as they are after it.
    case reaped([RunChild])
    /// Between inputs: the children, with what their suspended ones hold, weighed against the
    /// `--suspended-memory` budget.
    case weighSuspendedMemory([RunChild])
}

/// What the signal table says to do with a signal the supervisor received.
public enum SignalOrder: Equatable, Sendable {
    /// Every child to the background, as `background all`.
    case background
    /// Every child to the foreground, as `foreground all`.
    case foreground
    /// Every child terminated gracefully, as `terminate all`; killed on a second one.
    case terminate
    /// The signal on to the `SignalTarget` of every child that has processes.
    case forward(SignalTarget)
    /// A stop of the job, as a terminal's Ctrl-Z (``RunAction/stopJob(signal:)``).
    case stop
    /// Only logged.
    case ignore
}

/// A stdin step that failed the run (exit status 123), for the JUnit results and annotations.
public enum ScriptStepKind: String, Equatable, Sendable {
    /// A `wait` that timed out or waited for a state its child can no longer reach.
    case wait
    /// A command that could not be run as written.
    case command
}
