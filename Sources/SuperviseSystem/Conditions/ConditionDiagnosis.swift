import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystemCall
import SystemPackage
import _SuperviseCShims

extension MachineConditions {
    /// One line for `supervise doctor`: whether `condition` holds, from what, and how a waiting
    /// task learns of a change (the notification is opened and closed again to see).
    public func diagnose(_ condition: ScheduleCondition) -> String {
        let state: String = switch read(condition) {
        case .success(true): "holds"
        case .success(false): "does not hold"
        case .failure(let unreadable): "never holds here: \(unreadable)"
        }
        return "condition \(condition.rawValue): \(state) (\(source(of: condition))); \(notification(of: condition))"
    }

    private func source(of condition: ScheduleCondition) -> String {
        switch condition {
        case .idle:
            "\(sources.cpuPressure): some avg10 \(currentAvg10) below \(sources.idleRule.threshold)"
        case .power:
            "\(sources.powerSupplies): a supply online, a battery charging, or no battery"
        case .network:
            "a default route in \(sources.ipv4Routes) or \(sources.ipv6Routes) through a link up and running"
        }
    }

    private func notification(of condition: ScheduleCondition) -> String {
        let recheck = "re-read every \(ConditionWatcher.recheckInterval.components.seconds) s while a task waits"
        let told: Result<String, Errno> = switch condition {
        case .idle:
            PressureTrigger.open(
                path: sources.cpuPressure, scope: .some,
                stall: sources.idleRule.triggerStall(window: ConditionWatcher.idleTriggerWindow),
                window: ConditionWatcher.idleTriggerWindow
            ).map { _ in "a PSI trigger tells when it turns busy" }
        case .power:
            Self.probe(_supervise_netlink_uevent, _supervise_uevent_group).map { "uevents tell of a change" }
        case .network:
            Self.probe(_supervise_netlink_route, _supervise_route_groups).map { "rtnetlink tells of a change" }
        }
        switch told {
        case .success(let how): return "\(how), \(recheck)"
        case .failure(let error): return "no notification (\(error.sentenceText)), \(recheck)"
        }
    }

    /// `some avg10` of the CPU pressure file now, or `?`.
    private var currentAvg10: String {
        guard case .success(let text) = FileIO.readFile(sources.cpuPressure),
              let stall = PressureStall(text: text)
        else { return "?" }
        return String(stall.some.avg10)
    }

    private static func probe(_ netlinkProtocol: Int32, _ groups: UInt32) -> Result<Void, Errno> {
        valueOrErrno { _supervise_netlink_open(netlinkProtocol, groups) }.map { Descriptor.close($0) }
    }
}
