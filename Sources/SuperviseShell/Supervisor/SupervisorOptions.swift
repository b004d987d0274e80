import SuperviseConfig
import SuperviseLifecycle
import SuperviseSystem

/// Where control commands come from.
public enum ControlSource: String, Sendable, CaseIterable {
    /// Commands on standard input; children get /dev/null as theirs.
    case stdin
    /// No commands; children keep the supervisor's standard input.
    case none
}

/// How one run of the supervisor behaves, beyond each child's own settings.
public struct SupervisorOptions: Sendable {
    public var control: ControlSource = .stdin
    /// Log a stdin command that can't be run as written and go on, even when stdin is a pipe or
    /// a file (where it otherwise ends the run: ``CommandMistakes``).
    public var keepGoing = false
    /// Where to write the JSON report when the run ends (checked before the run).
    public var report: ResultFile?
    /// Where to write the picture of the run (``HtmlReport``) when it ends.
    public var html: ResultFile?
    /// Where to write the JUnit XML results when the run ends.
    public var junit: ResultFile?
    /// Print violations and failed waits as GitHub workflow commands (`::error`) at the end.
    public var githubAnnotations = false
    /// The JUnit `<testsuite>` name, and every test case's `classname`.
    public var junitSuite = "supervise"
    /// The exit status when a child was killed for a violation.
    public var violationStatus: Int32 = 124
    /// Prefix each child's output lines with its name (when there is more than one child).
    public var prefixOutput = true
    /// The exit status when a freezer the children ask for can't be used: 125 when it was asked
    /// for on the command line, 2 when a config file named it (a config error).
    public var freezerUnavailableStatus: Int32 = 125
    /// Print a human summary of the run on stderr when it ends (``RunSummaryText``).
    public var summary = false
    /// The cgroup v2 directory this supervisor's cgroup is made in (`--cgroup-root`), instead of
    /// the one it runs in.
    public var cgroupRoot: String?
    /// Stay up after every child has exited, for events, while commands can still come.
    public var keepRunning = false
    /// The most memory the suspended children may hold together, in bytes; over it, the one
    /// suspended longest is reclaimed. `nil`: no budget.
    public var suspendedMemory: UInt64?
    /// The memory pressure trigger, its levels, and from which level suspended children are
    /// reclaimed (`--reclaim-on-pressure`; `nil` in the settings: never for pressure).
    public var memoryPressure = MemoryPressure.Settings.standard
    /// What each signal sent to the supervisor does.
    public var signalTable: SignalTable = .standard

    public init() {}
}

extension RunCore.Settings {
    /// What the options say of the run as a whole.
    init(_ options: SupervisorOptions) {
        self.init(keepRunning: options.keepRunning, violationStatus: options.violationStatus,
                  freezersUnavailableStatus: options.freezerUnavailableStatus, suspendedMemory: options.suspendedMemory)
    }
}
