/// Who a result file is given to: the user who ran `sudo supervise …`, so that what root wrote
/// for them (`--report`, `--junit`, `--html`) is theirs to read, upload and remove.
public struct ResultOwner: Equatable, Sendable {
    public var uid: UInt32
    public var gid: UInt32

    public init(uid: UInt32, gid: UInt32) {
        self.uid = uid
        self.gid = gid
    }

    /// ``sudoUser(environment:effectiveUID:)`` for this process: who its result files go to.
    public static var ofThisProcess: ResultOwner? {
        sudoUser(environment: CurrentProcess.environment, effectiveUID: CurrentProcess.effectiveUserID)
    }

    /// The invoking user as sudo names it (`SUDO_UID`, `SUDO_GID`), when the supervisor runs as
    /// root (`effectiveUID` 0) and both are whole numbers; nil otherwise, and for root itself.
    /// Whoever may run supervise as root may run anything as root: the variables grant nothing.
    public static func sudoUser(environment: [String], effectiveUID: UInt32) -> ResultOwner? {
        guard effectiveUID == 0 else { return nil }
        func number(_ key: String) -> UInt32? {
            environment.last { $0.hasPrefix(key + "=") }.flatMap { UInt32($0.dropFirst(key.count + 1)) }
        }
        guard let uid = number("SUDO_UID"), let gid = number("SUDO_GID"), uid != 0 else { return nil }
        return ResultOwner(uid: uid, gid: gid)
    }
}
