import ArgumentParser
import Logging
import SuperviseConfig
import SuperviseLifecycle
import SuperviseShell
import SuperviseSystem
import SuperviseProtocol

/// `supervise [OPTIONS] -- COMMAND [ARG...]` and `supervise --config FILE [OPTIONS]`.
///
/// Two things here are for start-up time (callgrind, docs/performance.md, "Lean"). Each option's
/// long name is spelled out: ArgumentParser derives a missing one from the property's name a
/// Character at a time, some 70 times a start (1 M instructions). And no option that takes one
/// value gives ArgumentParser a default: each is applied here and named in its help line, since
/// describing a default costs ArgumentParser dynamic casts, each a scan of every conformance
/// record in the binary (1.3 M).
struct SuperviseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise",
        abstract: "Run programs under the iOS app lifecycle.",
        usage: """
            supervise [OPTIONS] -- COMMAND [ARG...]
              supervise --config FILE [OPTIONS]
              supervise report FILE --html FILE
              supervise ctl [--socket PATH] COMMAND [ARG...]
              supervise doctor
            """,
        discussion: HelpText.discussion,
        version: SuperviseVersion.line)

    @Option(name: .customLong("name"), help: "The child's name (default: the command's basename).")
    var name: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("Read several named children from a TOML file.", valueName: "file"))
    var config: String?

    @Option(name: .customLong("window"), parsing: .unconditional, help: ArgumentHelp("The did-enter-background window; 0 means none. (default 5s, or the limit if shorter)", valueName: "duration"),
            transform: parseDuration)
    var window: Duration?

    @Option(name: .customLong("limit"), parsing: .unconditional, help: ArgumentHelp("The background time limit while tasks are open. (default 30s)", valueName: "duration"),
            transform: parseDuration)
    var limit: Duration?

    @Option(name: .customLong("expiry-warning"), parsing: .unconditional, help: ArgumentHelp("How long before the limit open tasks get 'expire'. (default 5s, or half the limit if shorter)", valueName: "duration"),
            transform: parseDuration)
    var expiryWarning: Duration?

    @Option(name: .customLong("grace"), parsing: .unconditional, help: ArgumentHelp("How long a terminated child has before SIGKILL. (default 5s)", valueName: "duration"),
            transform: parseDuration)
    var grace: Duration?

    @Option(name: .customLong("on-window-overrun"), help: ArgumentHelp("What an aware child that misses its window gets. (default kill)",
                               valueName: "action"))
    var onWindowOverrun: WindowOverrunAction?

    @Option(name: .customLong("freeze-timeout"), parsing: .unconditional, help: ArgumentHelp("How long verifying a freeze may take (default 1s).", valueName: "duration"),
            transform: parseDuration)
    var freezeTimeout: Duration?

    @Flag(name: .customLong("aware"), help: "The child must say hello within --launch-timeout.")
    var aware = false

    @Option(name: .customLong("launch-timeout"), parsing: .unconditional, help: ArgumentHelp("How long --aware waits for hello. (default 20s)", valueName: "duration"),
            transform: parseDuration)
    var launchTimeout: Duration?

    @Option(name: .customLong("freezer"), help: ArgumentHelp("The freezer; by default (auto), the first that works.",
                               valueName: "freezer"))
    var freezer: FreezerChoice?

    @Option(name: .customLong("cgroup-root"), help: ArgumentHelp("Make the cgroup v2 freezer's cgroups in this one.", valueName: "path"))
    var cgroupRoot: String?

    @Option(name: .customLong("launch"), help: ArgumentHelp("The state a child starts in. (default foreground)", valueName: "state"))
    var launch: LaunchState?

    @Option(name: .customLong("stop-signal"), help: ArgumentHelp("The signal an unaware child is terminated with. (default TERM)", valueName: "signal"),
            transform: parseSignal)
    var stopSignal: Int32?

    @Option(name: .customLong("max-tasks"), parsing: .unconditional, help: ArgumentHelp("The most task assertions a child may hold at once. (default 256)", valueName: "n"))
    var maxTasks: Int?

    @OptionGroup var scheduling: ScheduleOptions

    @Option(name: .customLong("control"), help: ArgumentHelp("Commands on stdin, or none: children keep stdin. (default stdin)", valueName: "source"))
    var control: ControlSource?

    @Option(name: .customLong("socket"), help: ArgumentHelp("Take commands on this Unix socket too (supervise ctl).", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("socket-group"), help: ArgumentHelp("Let this group use the socket too (mode 0660).", valueName: "group"))
    var socketGroup: String?

    @Option(name: .customLong("signal"),
            help: ArgumentHelp("Remap a signal: USR1=forward. Repeatable (SIGNALS).", valueName: "sig=action"))
    var signalMappings: [String] = []

    @Flag(name: .customLong("keep-going"), help: "Go on after a stdin command that can't be run.")
    var keepGoing = false

    @Flag(name: .customLong("keep-running"), help: "Stay up for events after every child has exited.")
    var keepRunning = false

    @Option(name: .customLong("suspended-memory"), parsing: .unconditional, help: ArgumentHelp("Reclaim suspended children over this memory: 512M.", valueName: "size"))
    var suspendedMemory: String?

    @Flag(name: .customLong("memory-warnings"), help: "Warn running children under memory pressure.")
    var memoryWarnings = false

    @Flag(name: .customLong("reclaim-on-pressure"), help: "Reclaim suspended children under memory pressure.")
    var reclaimOnPressure = false

    @Option(name: .customLong("report"), help: ArgumentHelp("Write the run's JSON report to this file when it ends.", valueName: "file"))
    var report: String?

    @Option(name: .customLong("junit"), help: ArgumentHelp("Write the run's results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Option(name: .customLong("html"), help: ArgumentHelp("Write the run's timeline as an HTML page to this file.", valueName: "file"))
    var html: String?

    @Option(name: .customLong("junit-suite"), help: ArgumentHelp("Name the JUnit suite. (default: config or child name)", valueName: "name"))
    var junitSuite: String?

    @Option(name: .customLong("annotations"), help: ArgumentHelp("GitHub ::error lines; auto: if GITHUB_ACTIONS=true.",
                               valueName: "format"))
    var annotations: AnnotationChoice?

    @Option(name: .customLong("violation-status"), parsing: .unconditional, help: ArgumentHelp("The exit status when a violation killed a child. (default 124)", valueName: "n"))
    var violationStatus: Int32?

    @Option(name: .customLong("log-format"), help: ArgumentHelp("The supervisor's own log on stderr: text or json. (default text)", valueName: "format"))
    var logFormat: LogFormat?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("The least important log lines the supervisor shows. (default info)",
                               valueName: "level"))
    var logLevel: Logger.Level?

    @Flag(name: .customLong("log-time"), help: "Start each log line with the UTC time (RFC 3339, ms).")
    var logTime = false

    @Flag(name: .customLong("summary"), inversion: .prefixedNo,
          help: "A summary at the end. (default: on a terminal)")
    var summary: Bool?

    @Flag(name: .customLong("no-prefix"), help: "Don't prefix several children's output with names.")
    var noPrefix = false

    @Option(name: .customLong("user"), help: ArgumentHelp("Run the child as this user (docs/security.md).", valueName: "user[:group]"))
    var user: String?

    @Option(name: .customLong("capabilities"), help: ArgumentHelp("The child's only capabilities, comma-separated.",
                               valueName: "cap,..."))
    var capabilities: String?

    @Flag(name: .customLong("allow-new-privileges"), help: "Let a confined child gain privileges by exec.")
    var allowNewPrivileges = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if config != nil, !command.isEmpty {
            throw ValidationError("give either --config FILE or -- COMMAND, not both")
        }
        if config != nil, name != nil {
            throw ValidationError("--name is for a single child; name children in the config file")
        }
        if config != nil, user != nil || capabilities != nil || allowNewPrivileges {
            throw ValidationError("--user, --capabilities and --allow-new-privileges are for a single child; "
                + "set user, capabilities and allow-new-privileges in the config file's child tables")
        }
        if let cgroupRoot, !cgroupRoot.hasPrefix("/") {
            throw ValidationError("--cgroup-root must be an absolute path in the cgroup v2 hierarchy, not '\(cgroupRoot)'")
        }
        if let maxTasks, !(1...1_000_000).contains(maxTasks) {
            throw ValidationError("--max-tasks must be between 1 and 1000000, not \(maxTasks)")
        }
        if let violationStatus, !(0...255).contains(violationStatus) {
            throw ValidationError("--violation-status must be between 0 and 255, not \(violationStatus)")
        }
        if let name, !ChildName.isValid(name) {
            throw ValidationError("--name '\(name)' must be letters, digits, '.', '_' or '-', and not 'all'")
        }
        if let problem = overrides.resolved().settings.problem { throw ValidationError(problem) }
        _ = try memoryBudget()
        _ = try signalTable()
        if socketGroup != nil, socket == nil {
            throw ValidationError("--socket-group is for the control socket: give --socket PATH too")
        }
        try validateCIResults()
    }

    /// The signal table with every `--signal SIG=ACTION` applied, in order, and the terminal's
    /// signals that the supervisor was started with ignored left ignored.
    func signalTable() throws(ValidationError) -> SignalTable {
        var table = SignalTable.standard
        for mapping in signalMappings {
            do throws(UsageError) {
                let (signal, action) = try SignalTable.parseMapping(mapping)
                table = table.remapping(signal, to: action)
            } catch {
                throw ValidationError("--signal \(error.message)")
            }
        }
        return table.keepingIgnored(CurrentProcess.ignoredSignals(among: SignalTable.keptIgnoredIfInherited))
    }

    /// The control socket of `--socket`, listening, owned by `--socket-group` if given.
    func controlSocket() throws(ValidationError) -> ControlListener? {
        guard let socket else { return nil }
        var group: UInt32?
        if let socketGroup {
            do throws(PrivilegeLookupError) {
                group = try UserDatabase.groupID(socketGroup)
            } catch {
                throw ValidationError("--socket-group: \(error.message)")
            }
        }
        do throws(SupervisorError) {
            return try ControlListener(path: socket, group: group)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `--report`, `--junit` and `--html`, each checked before anything is launched: a regular
    /// file or none, in a directory that takes a new file, no two the same, none the config file.
    /// Under sudo they are the invoking user's (``ResultOwner``).
    func resultFiles() throws(ValidationError) -> (report: ResultFile?, junit: ResultFile?, html: ResultFile?) {
        var opened: [(option: String, file: ResultFile)] = []
        for (option, path) in [("--report", report), ("--junit", junit), ("--html", html)] {
            guard let path else { continue }
            let quoted = "'\(ControlEscapes.escaped(path))'"
            let file: ResultFile
            do throws(ResultFileError) {
                file = try ResultFile(path: path, owner: .ofThisProcess)
            } catch {
                throw ValidationError("\(option) \(quoted): \(error.message)")
            }
            if let earlier = opened.first(where: { $0.file.isSame(as: file) }) {
                throw ValidationError("\(earlier.option) and \(option) name the same file \(quoted); give each its own")
            }
            if let config, file.isSame(asFileAt: config) {
                throw ValidationError("\(option) \(quoted) is the config file; give the results a file of their own")
            }
            opened.append((option, file))
        }
        func file(_ option: String) -> ResultFile? { opened.first { $0.option == option }?.file }
        return (file("--report"), file("--junit"), file("--html"))
    }

    /// The children to run, from the config file or the command line, and the config's settings
    /// of the whole run.
    func childSpecs() throws -> ConfigRun {
        if let config {
            return try ConfigFile.loadRun(path: config, commandLine: overrides)
        }
        // Checked here, not in validate(): ArgumentParser reports a validation error before an
        // unknown option, and `--windw 2 ./worker` must get its "did you mean '--window'?".
        guard !command.isEmpty else {
            throw ValidationError("no command: put it after '--', as in 'supervise --window 2 -- ./worker', or use --config FILE")
        }
        let (settings, freezerChoice) = overrides.resolved()
        let childName = name ?? ChildName.from(command: command[0])
        return ConfigRun(children: [ChildSpec(name: childName, command: command, settings: settings,
                                              freezer: freezerChoice, privileges: try privileges())],
                         suspendedMemory: nil)
    }

    /// What --user, --capabilities and --allow-new-privileges ask for, names resolved.
    private func privileges() throws(UsageError) -> ChildPrivileges {
        var privileges = ChildPrivileges(allowsNewPrivileges: allowNewPrivileges)
        if let capabilities {
            let names = capabilities.isEmpty ? [] : capabilities.split(separator: ",", omittingEmptySubsequences: false)
            do throws(PrivilegeLookupError) {
                privileges.capabilities = try CapabilitySet.parse(names.map(String.init))
            } catch {
                throw UsageError("--capabilities: \(error.message)")
            }
        }
        if let user {
            let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            do throws(PrivilegeLookupError) {
                privileges.identity = try UserDatabase.identity(user: parts[0], group: parts.count > 1 ? parts[1] : nil)
            } catch {
                throw UsageError("--user: \(error.message)")
            }
        }
        return privileges
    }

    mutating func run() throws {
        let specs: [ChildSpec]
        let configured: ConfigRun
        do {
            configured = try childSpecs()
            specs = configured.children
        } catch let error as UsageError {
            throw ValidationError(error.message)
        }
        let results = try resultFiles()
        let origin = MonotonicClock.now()
        let format = logFormat ?? .text, level = logLevel ?? .info, stampsTime = logTime
        LoggingSystem.bootstrap { _ in
            StderrLogHandler(format: format, level: level, origin: origin, stampsTime: stampsTime)
        }
        let logger = Logger(label: "supervise")
        for case let file? in [results.report, results.junit, results.html] where file.removedLeftovers > 0 {
            let files = file.removedLeftovers == 1 ? "file" : "files"
            logger.info("removed \(file.removedLeftovers) temporary \(files) of '\(ControlEscapes.escaped(file.path))' left by supervisors that are gone")
        }
        var options = SupervisorOptions()
        options.control = control ?? options.control
        options.keepGoing = keepGoing
        options.keepRunning = keepRunning
        options.suspendedMemory = try memoryBudget() ?? configured.suspendedMemory
        options.memoryPressure = memoryPressure(configured: configured.memoryPressure)
        options.report = results.report
        options.junit = results.junit
        options.cgroupRoot = cgroupRoot
        options.html = results.html
        options.githubAnnotations = githubAnnotations
        options.junitSuite = junitSuiteName(specs: specs)
        options.violationStatus = violationStatus ?? options.violationStatus
        options.signalTable = try signalTable()
        options.prefixOutput = !noPrefix
        // On stderr, where the log is: stdout may be the children's output, piped elsewhere. A log
        // quieter than notice (warning, error, critical) asked for no account of an ordinary run.
        options.summary = summary ?? (format == .text && level <= .notice && Descriptor.isTerminal(Descriptor.standardError))
        if config != nil { options.freezerUnavailableStatus = 2 }
        let listener = try controlSocket()
        let status: Int32
        do {
            let conditions = ConditionWatcher(conditions: MachineConditions(sources: scheduling.conditionSources))
            status = try Supervisor(children: specs, options: options, logger: logger, controlSocket: listener,
                                    conditions: conditions).run()
        } catch {
            logger.error("\(error.message)")
            listener?.remove()
            status = 125
        }
        CurrentProcess.exit(status)
    }
}

private func parseSignal(_ text: String) throws -> Int32 {
    do {
        return try SignalName.parse(text)
    } catch {
        throw ValidationError(error.message)
    }
}

func parseDuration(_ text: String) throws -> Duration {
    do {
        return try DurationParser.parse(text)
    } catch {
        throw ValidationError(error.message)
    }
}

/// An option whose values are an enum's raw strings.
///
/// Lists them with a closure: ArgumentParser's default `allValueStrings` instantiates a key path at
/// each call, 24 while parsing, 1.5 M of the 21 M instructions of `supervise -- /bin/true`
/// (callgrind, docs/performance.md). Its default `allValueDescriptions` compares each value's
/// description with its raw value's, which are the same here, for 0.5 M more.
protocol RawValueArgument: ExpressibleByArgument, CaseIterable, RawRepresentable where RawValue == String {}

extension RawValueArgument {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
    public static var allValueDescriptions: [String: String] { [:] }
}

extension WindowOverrunAction: RawValueArgument {}
extension FreezerChoice: RawValueArgument {}
extension LaunchState: RawValueArgument {}
extension AnnotationChoice: RawValueArgument {}
extension ControlSource: RawValueArgument {}
extension LogFormat: RawValueArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument, RawValueArgument {}
