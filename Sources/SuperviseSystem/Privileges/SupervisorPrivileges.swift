import CLibcap
import Glibc

/// What the supervisor itself may do with its children's privileges: who it runs as and the
/// capabilities it holds (libcap reads them), for `supervise doctor`.
public struct SupervisorPrivileges: Sendable {
    public var uid: UInt32
    public var gid: UInt32
    public var userName: String?
    /// The supervisor's effective capabilities.
    public var effective: CapabilitySet
    /// Its bounding set: what a child may be granted at most.
    public var bounding: CapabilitySet
    /// Whether no-new-privileges is set on the supervisor (and so on every child).
    public var noNewPrivileges: Bool

    /// The running supervisor's.
    public static func current() -> SupervisorPrivileges {
        let uid = getuid()
        var effective = CapabilitySet(), bounding = CapabilitySet()
        if let capabilities = cap_get_proc() {
            defer { cap_free(UnsafeMutableRawPointer(capabilities)) }
            for number in 0...CapabilitySet.lastKnown {
                var flag = CAP_CLEAR
                if cap_get_flag(capabilities, cap_value_t(number), CAP_EFFECTIVE, &flag) == 0, flag == CAP_SET {
                    effective.mask |= 1 << UInt64(number)
                }
                if cap_get_bound(cap_value_t(number)) == 1 {
                    bounding.mask |= 1 << UInt64(number)
                }
            }
        }
        let name = (try? UserDatabase.identity(user: String(uid), group: String(getgid())))?.userName
        return SupervisorPrivileges(uid: uid, gid: getgid(), userName: name, effective: effective, bounding: bounding,
                                    noNewPrivileges: cap_prctl(Int(PR_GET_NO_NEW_PRIVS), 0, 0, 0, 0, 0) == 1)
    }

    /// The capabilities `--user` needs and the supervisor lacks; empty when it may switch users.
    public var missingForUserSwitch: [String] {
        let needed: UInt64 = 1 << UInt64(CAP_SETUID) | 1 << UInt64(CAP_SETGID) | 1 << UInt64(CAP_SETPCAP)
        return CapabilitySet(mask: needed & ~effective.mask).names
    }
}
