/// Everything needed to start one child.
public struct SpawnRequest: Sendable {
    /// argv; `arguments[0]` is looked up on `PATH` when it has no `/`.
    public var arguments: [String]
    /// The complete environment, as `KEY=VALUE`.
    public var environment: [String]
    public var workingDirectory: String?
    /// Descriptors the child gets as 0, 1 and 2.
    public var stdin: Int32
    public var stdout: Int32
    public var stderr: Int32
    /// The child's ends of the protocol pipes, placed at fds 3 (events) and 4 (requests).
    public var eventsFD: Int32
    public var requestsFD: Int32
    /// A `cgroup.procs` descriptor the child writes `0` into before exec, or `nil`.
    public var cgroupProcsFD: Int32?
    /// A cgroup v2 directory the child is created in (clone3 CLONE_INTO_CGROUP), or `nil`;
    /// where the kernel can't, the child writes to `cgroupProcsFD`, or without one to the
    /// directory's `cgroup.procs`, opened then.
    public var cgroupDirectoryFD: Int32?
    /// Make the child's process group the terminal's foreground group (`--control none` on a tty).
    public var takeTerminal: Bool
    /// The name of an environment variable (`SUPERVISE_PID`) the spawner sets to the child's own
    /// pid, replacing any entry of that name in `environment`; `nil` for none.
    public var pidVariable: String?
    /// The open-files limit to restore in the child (the supervisor raised its own).
    public var openFilesLimit: (soft: UInt64, hard: UInt64)?
    /// Who the child runs as and what it may do; the default keeps the supervisor's.
    public var privileges: ChildPrivileges
    /// Signals the child starts with ignored (the supervisor inherited them ignored); every
    /// other signal starts at its default disposition.
    public var ignoredSignals: [Int32]

    public init(arguments: [String], environment: [String], workingDirectory: String? = nil,
                stdin: Int32 = 0, stdout: Int32 = 1, stderr: Int32 = 2,
                eventsFD: Int32, requestsFD: Int32, cgroupProcsFD: Int32? = nil, cgroupDirectoryFD: Int32? = nil,
                takeTerminal: Bool = false, pidVariable: String? = nil,
                openFilesLimit: (soft: UInt64, hard: UInt64)? = nil, privileges: ChildPrivileges = ChildPrivileges(),
                ignoredSignals: [Int32] = []) {
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.eventsFD = eventsFD
        self.requestsFD = requestsFD
        self.cgroupProcsFD = cgroupProcsFD
        self.cgroupDirectoryFD = cgroupDirectoryFD
        self.takeTerminal = takeTerminal
        self.pidVariable = pidVariable
        self.openFilesLimit = openFilesLimit
        self.privileges = privileges
        self.ignoredSignals = ignoredSignals
    }
}
