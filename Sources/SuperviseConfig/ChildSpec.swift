import SuperviseLifecycle
import SuperviseSystem

/// One child to supervise: what to run and under which rules.
public struct ChildSpec: Equatable, Sendable {
    /// The child's name in logs, reports and commands.
    public var name: String
    /// argv; no shell is involved.
    public var command: [String]
    /// Added to the inherited environment.
    public var environment: [String: String]
    public var workingDirectory: String?
    public var settings: LifecycleSettings
    public var freezer: FreezerChoice
    public var restart: RestartRules
    /// Who the child runs as and which capabilities it keeps (docs/security.md).
    public private(set) var privileges: ChildPrivileges
    /// Launched when the run starts; `false` leaves it `not-running` until an event launches it.
    public var autostart = true
    /// Between children suspended at the same instant, the lower is reclaimed first.
    public var priority = 0
    /// The scheduled tasks its config asks for (`[child.NAME.schedule.ID]`), run every `every`.
    public var schedules: [ConfiguredSchedule] = []
    /// Where the config file defines the child (its `[child.NAME]` table); nil on the command line.
    public var configLocation: ConfigLocation?

    public init(name: String, command: [String], environment: [String: String] = [:],
                workingDirectory: String? = nil, settings: LifecycleSettings = LifecycleSettings(),
                freezer: FreezerChoice = .auto, restart: RestartRules = RestartRules(),
                privileges: ChildPrivileges = ChildPrivileges()) {
        self.name = name
        self.command = command
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.settings = settings
        self.freezer = freezer
        self.restart = restart
        self.privileges = ChildPrivileges()
        confine(privileges)
    }

    /// Gives the child `privileges`, and its user's `HOME`, `USER` and `LOGNAME` (as `runuser`
    /// sets them) where its own `environment` doesn't set them.
    public mutating func confine(_ privileges: ChildPrivileges) {
        self.privileges = privileges
        for (key, value) in privileges.identity?.loginEnvironment ?? [:] where environment[key] == nil {
            environment[key] = value
        }
    }
}

/// A place in the config file: the path given to `--config` and a line (from 1).
public struct ConfigLocation: Equatable, Sendable {
    public var path: String
    public var line: Int

    public init(path: String, line: Int) {
        self.path = path
        self.line = line
    }
}
