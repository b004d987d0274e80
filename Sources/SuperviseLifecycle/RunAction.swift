/// What ``RunCore`` tells the shell to do, in order. A child is named by its place in the run's
/// list of children.
public enum RunAction: Equatable, Sendable {
    /// A line of the supervisor's log.
    case log(RunLogLevel, String)
    /// Hands `input` to `child`'s core, and starts the run its core asks for.
    case feed(child: Int, LifecycleInput)
    /// Closes `child`'s finished run (its pipes, its output) and hands its core `runOver`.
    case wrapUp(child: Int)
    /// Starts the run `child`'s core asked for, if it asked.
    case startRequestedRun(child: Int)
    /// Spawns the first run of `child`, which just joined the run.
    case startFirstRun(child: Int)
    /// Hands `input` to every child's core in turn, each at the time it is reached.
    case feedEveryChild(LifecycleInput)
    /// Sends `signal` to `recipients` of `child`, and records `note` in its timeline.
    case send(Int32, SignalRecipients, child: Int, note: String)
    /// Records `text` in `child`'s timeline.
    case note(child: Int, String)
    /// Looks at the tree of `child`, whose main process exited, and hands its core `treeEmptied`
    /// if nothing of it is left.
    case checkTreeEmpty(child: Int)
    /// A line of `child`'s log.
    case childLog(child: Int, RunLogLevel, String)
    /// Reclaims the suspended `child` (hands its core `reclaim`), saying `reason` in its timeline,
    /// its log and `status`.
    case reclaim(child: Int, reason: String)
    /// Stops the job as a terminal's Ctrl-Z would, on `signal` (``TerminalJobControl`` decides how).
    case stopJob(signal: Int32)
    /// No further stdin command runs.
    case stopCommands
    /// Records a stdin step that failed the run.
    case stepFailed(ScriptStepKind, line: Int, text: String, reason: String, children: [String])
    /// Refuses the command being run, for `reason`, wherever it came from
    /// (``RunCore/refusal(_:of:from:)`` routes it).
    case refuse(String)
    /// An error line in the log: stdin line `line`, `text`, was refused for `reason` (quoted as
    /// the stdin reader's `CommandEcho` allows).
    case refuseOnStdin(line: Int, text: String, reason: String)
    /// An error line in the log: stdin line `line` is not a command (`message` quotes it,
    /// `problem` does not).
    case ignoreOnStdin(line: Int, message: String, problem: String)
    /// One of the refusals the control client being answered gets, and a notice in the log.
    case refuseToClient(text: String, reason: String)
    /// The control client being answered gets a usage error: its line is not a command.
    case usageErrorToClient(String)
    /// The control client being answered gets its `wait`'s failure, for `reason`, as its answer.
    case failClientWait(reason: String)
}

/// How loud a ``RunAction/log(_:_:)`` line is: the shell's logger levels the run uses.
public enum RunLogLevel: Equatable, Sendable {
    case debug, info, notice, warning, error
}
