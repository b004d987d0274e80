/// What a stdin command that can't be run as written does to the run: a malformed line
/// (a ``ControlParser`` error, or a line over the length limit), a NAME no child has, or no
/// NAME with several children. A well-formed command that a child's state refuses is not a
/// mistake: it is always one error line and nothing else.
public enum CommandMistakes: Equatable, Sendable {
    /// One error line, and the run goes on: commands typed at a terminal, or `--keep-going`.
    case logged
    /// One error line, then no further command runs, every child is terminated gracefully and
    /// the exit status is 123: commands read from a pipe or a file, which nobody is there to
    /// correct, so a CI job ends at once rather than at its timeout.
    case endTheRun

    /// The rule for commands read from a terminal or not, with `--keep-going` or not.
    public init(fromTerminal: Bool, keepGoing: Bool) {
        self = fromTerminal || keepGoing ? .logged : .endTheRun
    }
}
