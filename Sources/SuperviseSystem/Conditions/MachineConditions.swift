import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystemCall
import Glibc
import SystemPackage
import _SuperviseCShims

/// Reads whether each condition holds now, from ``ConditionSources``: a few small files, no
/// descriptor kept. A condition that can't be read does not hold; ``read(_:)`` says why.
public struct MachineConditions: Sendable {
    public let sources: ConditionSources

    public init(sources: ConditionSources = ConditionSources()) {
        self.sources = sources
    }

    /// Every condition that holds now.
    public func held() -> Set<ScheduleCondition> {
        Set(ScheduleCondition.allCases.filter { (try? read($0).get()) == true })
    }

    /// Whether `condition` holds, or why it can't be told.
    public func read(_ condition: ScheduleCondition) -> Result<Bool, ConditionUnreadable> {
        switch condition {
        case .idle: isIdle()
        case .power: isOnExternalPower()
        case .network: hasNetwork()
        }
    }

    /// `some avg10` of the CPU pressure file below the idle threshold.
    func isIdle() -> Result<Bool, ConditionUnreadable> {
        let path = sources.cpuPressure
        return FileIO.readFile(path).mapError { ConditionUnreadable(path, $0) }.flatMap { text in
            guard let stall = PressureStall(text: text) else { return .failure(ConditionUnreadable(path, "no some line")) }
            return .success(sources.idleRule.isIdle(stall))
        }
    }

    /// The supplies' `type`, `online` and `status` judged by ``PowerSupply/onExternalPower(_:)``;
    /// no directory at all is no battery.
    func isOnExternalPower() -> Result<Bool, ConditionUnreadable> {
        let path = sources.powerSupplies
        switch FileIO.open(path, O_RDONLY | O_DIRECTORY) {
        case .failure(.noSuchFileOrDirectory): return .success(true)
        case .failure(let error): return .failure(ConditionUnreadable(path, error))
        case .success(let directory):
            defer { Descriptor.close(directory) }
            return Descriptor.directoryEntries(directory).mapError { ConditionUnreadable(path, $0) }.map { entries in
                PowerSupply.onExternalPower(entries.compactMap { supply(named: $0.name, in: directory) })
            }
        }
    }

    private func supply(named name: String, in directory: Int32) -> PowerSupply? {
        func value(_ file: String) -> String? {
            let text = FileIO.open("\(name)/\(file)", in: directory, O_RDONLY).flatMap { fd in
                defer { Descriptor.close(fd) }
                return Descriptor.readFromStart(fd)
            }
            return (try? text.get())?.split(separator: "\n").first.map(String.init)
        }
        guard let type = value("type") else { return nil }
        return PowerSupply(type: type, online: value("online").map { $0 == "1" }, status: value("status"))
    }

    /// A default route (IPv4 or IPv6) through a link that is up and running. A missing IPv6
    /// table (IPv6 disabled) has no routes.
    func hasNetwork() -> Result<Bool, ConditionUnreadable> {
        let ipv4 = FileIO.readFile(sources.ipv4Routes).mapError { ConditionUnreadable(sources.ipv4Routes, $0) }
        let ipv6: Result<String, ConditionUnreadable> = switch FileIO.readFile(sources.ipv6Routes) {
        case .failure(.noSuchFileOrDirectory): .success("")
        case let other: other.mapError { ConditionUnreadable(sources.ipv6Routes, $0) }
        }
        return ipv4.flatMap { ipv4 in
            ipv6.map { ipv6 in
                Set(DefaultRoutes.ipv4Links(ipv4) + DefaultRoutes.ipv6Links(ipv6)).contains(where: Self.linkIsUp)
            }
        }
    }

    /// The link's flags say up and running (a carrier), in this thread's network namespace.
    static func linkIsUp(_ name: String) -> Bool {
        var flags: UInt32 = 0
        guard case .success = valueOrErrno({ _supervise_link_flags(name, &flags) }) else { return false }
        return flags & _supervise_link_up_and_running == _supervise_link_up_and_running
    }
}

/// Why a condition can't be told: the file and what went wrong.
public struct ConditionUnreadable: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String

    init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    init(_ path: String, _ error: Errno) {
        self.init(path, error.sentenceText)
    }

    public var description: String { "\(path): \(reason)" }
}
