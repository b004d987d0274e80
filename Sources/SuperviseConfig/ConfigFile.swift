import SuperviseLifecycle
import SuperviseSystem

/// The `--config FILE` TOML file: defaults at the top level, one `[child.NAME]` table per child.
///
/// Settings apply in this order, each overriding the one before: built-in
/// defaults, the file's top level, the command line, the child's own table.
/// Every mistake is reported before anything is launched, as one line with
/// the file, the line and the key.
public enum ConfigFile {
    /// The lifecycle settings: allowed at the top level (defaults) and in each child's table.
    public static let settingKeys = [
        "window", "limit", "expiry-warning", "grace", "freeze-timeout", "freezer", "on-window-overrun", "launch",
        "stop-signal", "max-tasks", "aware", "launch-timeout", "refresh-time", "processing-time",
    ]
    /// The restart policy: allowed at the top level (defaults) and in each child's table.
    public static let restartKeys = ["restart", "restart-delay", "restart-delay-max", "restart-after-violation"]
    /// What to run: only in a child's table.
    public static let commandKeys = ["command", "env", "cwd", "schedule"] + privilegeKeys
    /// Who the child runs as and what it may do: only in a child's table.
    public static let privilegeKeys = ["user", "group", "groups", "capabilities", "allow-new-privileges"]
    /// Starting and reclaiming: allowed at the top level (defaults) and in each child's table.
    public static let startKeys = ["autostart", "priority"]
    /// The whole run: only at the top level.
    public static let runKeys = ["suspended-memory"] + pressureKeys
    /// Memory pressure: its trigger, its levels, and reclaim under it (top level only).
    public static let pressureKeys = ["memory-warnings", "reclaim-on-pressure", "pressure-stall", "pressure-window", "pressure-low",
                                      "pressure-critical", "reclaim-pause"]

    /// Reads and checks the config file at `path`, with `commandLine` applied as
    /// described above. Children come back in the order the file lists them.
    public static func load(path: String, commandLine: SettingsOverrides) throws(UsageError) -> [ChildSpec] {
        try loadRun(path: path, commandLine: commandLine).children
    }

    /// The children (as ``load(path:commandLine:)``) and the settings of the whole run.
    public static func loadRun(path: String, commandLine: SettingsOverrides) throws(UsageError) -> ConfigRun {
        try parseRun(text: readText(path: path), path: path, commandLine: commandLine)
    }

    /// Checks the config `text`, read from `path` (used in error messages only).
    public static func parse(text: String, path: String, commandLine: SettingsOverrides) throws(UsageError)
        -> [ChildSpec]
    {
        try parseRun(text: text, path: path, commandLine: commandLine).children
    }

    /// Checks the config `text`: its children and the settings of the whole run.
    public static func parseRun(text: String, path: String, commandLine: SettingsOverrides) throws(UsageError)
        -> ConfigRun
    {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(text)
        } catch {
            throw UsageError("\(path):\(error.line): \(error.message)")
        }
        let reader = ConfigReader(path: path)
        var defaults = ConfigLevel()
        var childTables: [(name: String, table: TOMLTable)] = []
        for entry in root.entries {
            guard entry.key == "child" else {
                try reader.read(entry, into: &defaults, section: nil)
                continue
            }
            guard case .table(let children) = entry.value else {
                throw reader.error(entry.line, "child: expected [child.NAME] tables, found \(entry.value.typeName)")
            }
            for child in children.entries {
                guard case .table(let table) = child.value else {
                    let name = ControlText.excerpt(child.key)
                    throw reader.error(child.line, "child.\(name): expected a [child.\(name)] table, "
                        + "found \(child.value.typeName)")
                }
                try checkName(child.key, line: table.line, reader: reader)
                childTables.append((child.key, table))
            }
        }
        guard !childTables.isEmpty else {
            throw UsageError("\(path): no children: add a [child.NAME] table with a command")
        }
        if let problem = defaults.memoryPressure.problem { throw UsageError("\(path): \(problem)") }
        var specs: [ChildSpec] = []
        for (name, table) in childTables {
            specs.append(try childSpec(name: name, table: table, defaults: defaults, commandLine: commandLine,
                                       reader: reader))
        }
        return ConfigRun(children: specs, suspendedMemory: defaults.suspendedMemory,
                         memoryPressure: defaults.memoryPressure)
    }

    private static func childSpec(
        name: String, table: TOMLTable, defaults: ConfigLevel, commandLine: SettingsOverrides, reader: ConfigReader
    ) throws(UsageError) -> ChildSpec {
        let section = "[child.\(ControlText.excerpt(name))]"
        var own = ConfigLevel()
        for entry in table.entries {
            try reader.read(entry, into: &own, section: section)
        }
        guard let command = own.command else {
            throw reader.error(table.line, "\(section) command: missing: add command = [\"program\", \"arg\", ...]")
        }
        var spec = ChildSpec(name: name, command: command, environment: own.environment,
                             workingDirectory: own.workingDirectory)
        spec.configLocation = ConfigLocation(path: reader.path, line: table.line)
        spec.confine(try reader.privileges(of: own, section: section))
        spec.schedules = own.schedules
        (spec.settings, spec.freezer) = defaults.settings.merged(with: commandLine).merged(with: own.settings).resolved()
        for level in [defaults, own] {
            if let policy = level.restart { spec.restart.policy = policy }
            if let delay = level.restartDelay { spec.restart.delay = delay }
            if let delayMax = level.restartDelayMax { spec.restart.delayMax = delayMax }
            if let afterViolation = level.restartAfterViolation { spec.restart.afterViolation = afterViolation }
            if let autostart = level.autostart { spec.autostart = autostart }
            if let priority = level.priority { spec.priority = priority }
        }
        if let problem = spec.settings.problem {
            throw reader.error(table.line, "\(section) \(problem) (from the file's defaults, the command line "
                + "and this table)")
        }
        if spec.restart.delayMax < spec.restart.delay {
            throw reader.error(table.line, "\(section) restart-delay-max (\(spec.restart.delayMax.formatted)) must "
                + "not be shorter than restart-delay (\(spec.restart.delay.formatted))")
        }
        return spec
    }

    private static func checkName(_ name: String, line: Int, reader: ConfigReader) throws(UsageError) {
        guard PortableName.isPortable(name) else {
            throw reader.error(line, "child name '\(ControlText.excerpt(name))' is not valid: use letters, digits, '.', '_' and '-'")
        }
        guard name != "all" else {
            throw reader.error(line, "child name 'all' is reserved (control commands use it for every child): "
                + "choose another")
        }
    }

    /// The largest config file read; a bigger one is refused rather than read without end.
    public static let maxFileSize = 1 << 20

    /// Reads the file at `path`: a regular file of at most ``maxFileSize`` bytes, in UTF-8.
    private static func readText(path: String) throws(UsageError) -> String {
        let bytes: [UInt8]
        switch RegularFile.read(path, maxSize: maxFileSize) {
        case .success(let read):
            bytes = read
        case .failure(.notRegular(let kind)):
            throw UsageError("cannot read the config file '\(path)': it is \(kind), not a regular file: "
                + "give the path of a TOML file to --config")
        case .failure(.tooLarge):
            throw UsageError("cannot read the config file '\(path)': it is over \(maxFileSize) bytes (1 MiB): "
                + "check the path given to --config")
        case .failure(.system(let error)):
            throw UsageError("cannot read the config file '\(path)': \(error): check the path given to --config")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else {
            throw UsageError("\(path): not valid UTF-8: save the config file as UTF-8")
        }
        return text
    }
}

/// What one level of the file (its top level or a child's table) sets.
struct ConfigLevel {
    var settings = SettingsOverrides()
    var restart: RestartPolicy?
    var restartDelay: Duration?
    var restartDelayMax: Duration?
    var restartAfterViolation: Bool?
    var autostart: Bool?
    var priority: Int?
    /// Top level only.
    var suspendedMemory: UInt64?
    var memoryPressure = MemoryPressure.Settings.standard
    var command: [String]?
    var environment: [String: String] = [:]
    var workingDirectory: String?
    var user: (text: String, line: Int)?
    var group: (text: String, line: Int)?
    var groups: (texts: [String], line: Int)?
    var capabilities: (names: [String], line: Int)?
    var allowsNewPrivileges = false
    /// A child's `[child.NAME.schedule.ID]` tables.
    var schedules: [ConfiguredSchedule] = []
}

/// What a config file says: the children, and the settings of the whole run.
public struct ConfigRun: Sendable {
    /// In the order the file lists them.
    public var children: [ChildSpec]
    /// `suspended-memory`, in bytes.
    public var suspendedMemory: UInt64?
    /// The `pressure-*` keys and `reclaim-on-pressure`.
    public var memoryPressure: MemoryPressure.Settings

    public init(children: [ChildSpec], suspendedMemory: UInt64?, memoryPressure: MemoryPressure.Settings = .standard) {
        self.children = children
        self.suspendedMemory = suspendedMemory
        self.memoryPressure = memoryPressure
    }
}
