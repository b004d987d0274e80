/// When a child that exited is started again.
public enum RestartPolicy: String, Sendable, CaseIterable {
    case never
    case onFailure = "on-failure"
    case always
}

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
    public var restart: RestartPolicy
    /// The wait before the first restart; doubled for each quick consecutive restart.
    public var restartDelay: Duration
    /// The longest wait between restarts.
    public var restartDelayMax: Duration
    /// Whether a child killed for an expiry or window violation is restarted too.
    public var restartAfterViolation: Bool

    public init(name: String, command: [String], environment: [String: String] = [:],
                workingDirectory: String? = nil, settings: LifecycleSettings = LifecycleSettings(),
                freezer: FreezerChoice = .auto, restart: RestartPolicy = .never,
                restartDelay: Duration = .seconds(1), restartDelayMax: Duration = .seconds(30),
                restartAfterViolation: Bool = false) {
        self.name = name
        self.command = command
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.settings = settings
        self.freezer = freezer
        self.restart = restart
        self.restartDelay = restartDelay
        self.restartDelayMax = restartDelayMax
        self.restartAfterViolation = restartAfterViolation
    }
}
