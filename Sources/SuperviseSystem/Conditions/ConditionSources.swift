import SuperviseLifecycle

/// Where the machine's conditions are read: the kernel's files by default, or stand-ins a
/// test (or a container that mounts the host's files elsewhere) points at.
public struct ConditionSources: Equatable, Sendable {
    /// CPU pressure (`idle`): `/proc/pressure/cpu`, or a cgroup v2's `cpu.pressure`.
    public var cpuPressure: String
    /// The power supplies (`power`): a directory of one directory per supply, each with `type`
    /// and, as the kernel has them, `online` and `status`.
    public var powerSupplies: String
    /// The IPv4 and IPv6 route tables (`network`), in the kernel's formats.
    public var ipv4Routes: String
    public var ipv6Routes: String
    /// When the machine counts as idle.
    public var idleRule: IdleRule

    public init(
        cpuPressure: String = "/proc/pressure/cpu",
        powerSupplies: String = "/sys/class/power_supply",
        ipv4Routes: String = "/proc/net/route",
        ipv6Routes: String = "/proc/net/ipv6_route",
        idleRule: IdleRule = .standard
    ) {
        self.cpuPressure = cpuPressure
        self.powerSupplies = powerSupplies
        self.ipv4Routes = ipv4Routes
        self.ipv6Routes = ipv6Routes
        self.idleRule = idleRule
    }

}
