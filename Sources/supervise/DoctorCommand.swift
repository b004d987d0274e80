import ArgumentParser
import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem

/// `supervise doctor`: what this supervisor can do here, in lines to paste into a bug report.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "supervise doctor",
        abstract: "Say what supervise can do here: freezers, users, capabilities, memory pressure, conditions.")

    mutating func run() {
        let privileges = SupervisorPrivileges.current()
        var lines = ["supervise doctor"]
        lines.append("user: uid \(privileges.uid)\(privileges.userName.map { " (\($0))" } ?? ""), gid \(privileges.gid)")
        lines.append("capabilities: \(Self.describe(privileges.effective)) (effective)")
        lines.append("bounding set: \(Self.describe(privileges.bounding)) (the most a child can be granted)")
        let missing = privileges.missingForUserSwitch
        lines.append(missing.isEmpty
            ? "--user: yes (holds cap_setuid, cap_setgid, cap_setpcap)"
            : "--user: no: lacks \(missing.joined(separator: ", ")) (run supervise as root)")
        lines.append("no-new-privileges: \(privileges.noNewPrivileges ? "set on supervise, so on every child too" : "not set")")
        var first: String?
        for kind in FreezerKind.allCases {
            let (usable, text) = FreezerSelection.diagnose(kind)
            if usable, first == nil { first = kind.rawValue }
            lines.append("freezer \(text)")
        }
        lines.append("freezer auto: \(first ?? "none: a run is refused")")
        let pressure = MemoryPressure.Settings.standard
        lines.append("memory pressure: \(MemoryPressureFile.diagnose(stall: pressure.stall, window: pressure.window))")
        let conditions = MachineConditions()
        lines += ScheduleCondition.allCases.map(conditions.diagnose)
        print(lines.joined(separator: "\n"))
    }

    /// `none`, the names, or for most of them `all N but` the missing ones.
    private static func describe(_ set: CapabilitySet) -> String {
        let all = CapabilitySet(mask: UInt64.max >> (63 - UInt64(CapabilitySet.lastKnown)))
        let names = set.names, missing = CapabilitySet(mask: all.mask & ~set.mask).names
        if names.isEmpty { return "none" }
        if missing.isEmpty { return "all \(names.count) the kernel knows" }
        if missing.count < names.count { return "all \(names.count + missing.count) but \(missing.joined(separator: ","))" }
        return names.joined(separator: ",")
    }
}
