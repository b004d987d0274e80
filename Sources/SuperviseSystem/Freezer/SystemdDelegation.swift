/// Whether this supervisor's own cgroup v2 is a systemd service's cgroup that was not delegated to
/// it. systemd owns a service's cgroup subtree unless the unit says `Delegate=yes`, and may
/// rearrange or kill cgroups made in it; as root the subtree is writable all the same, so being
/// writable proves nothing there.
///
/// What systemd leaves (v251 and later, Debian 12's 252 among them): a unit's cgroup carries the
/// unit's invocation id in the extended attribute `trusted.invocation_id` (`user.invocation_id`
/// too), and `trusted.delegate` (`user.delegate`) set to `1` when it is delegated. A service's
/// processes live in its cgroup itself unless it is delegated, so a process whose own cgroup is a
/// marked `NAME.service` without the delegate mark is in a service systemd did not delegate —
/// whatever its environment says (`sudo` drops `$INVOCATION_ID`). Scopes (`systemd-run --scope`,
/// login sessions) keep today's rule.
enum SystemdDelegation {
    /// What systemd marked on a cgroup.
    struct Marks: Equatable {
        /// `trusted.invocation_id` (or `user.invocation_id`): the unit's invocation, nil when unmarked.
        var invocationID: String?
        /// `trusted.delegate` (or `user.delegate`): "1" when the unit has `Delegate=yes`.
        var delegate: String?
    }

    /// Why cgroup v2 in `directory`, this process's own cgroup, must be passed over, or nil when it
    /// is not a systemd service's or the service delegated it.
    static func refusal(directory: String, marks: Marks) -> FreezerUnusable? {
        guard directory.hasSuffix(".service"), marks.invocationID?.isEmpty == false, marks.delegate != "1" else {
            return nil
        }
        return FreezerUnusable("cgroup v2 at \(directory) is a systemd service's cgroup that was not delegated to it "
                               + "(no Delegate=yes): systemd owns it, and may move or kill what is made in it",
                               cause: .notDelegated)
    }
}
