/// The machine's power supplies as `/sys/class/power_supply/*` shows them, and whether it is
/// on external power for a scheduled task's `power` condition.
public struct PowerSupply: Equatable, Sendable {
    /// `type`: `Mains`, `USB`, `Battery`, `UPS`, `Wireless`, …
    public var type: String
    /// `online` (`1` or `0`); `nil` where the supply has no such file (most batteries).
    public var online: Bool?
    /// `status` of a battery: `Charging`, `Discharging`, `Full`, `Not charging`, `Unknown`.
    public var status: String?

    public init(type: String, online: Bool?, status: String?) {
        self.type = type
        self.online = online
        self.status = status
    }

    /// True on external power: some supply that is not a battery is online; or there is no
    /// battery at all (a server, a VM); or a battery says it is charging, full or not
    /// charging, which it says only while plugged in. A battery that is discharging, or says
    /// nothing more, with no supply online, is not.
    public static func onExternalPower(_ supplies: [PowerSupply]) -> Bool {
        let batteries = supplies.filter { $0.type == "Battery" }
        if batteries.isEmpty { return true }
        if supplies.contains(where: { $0.type != "Battery" && $0.online == true }) { return true }
        return batteries.contains { ["Charging", "Full", "Not charging"].contains($0.status) }
    }
}
