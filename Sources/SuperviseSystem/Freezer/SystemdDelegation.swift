/// Whether this supervisor's own cgroup v2 is a systemd service's cgroup that was not delegated to
/// it. systemd owns a service's cgroup subtree unless the unit says `Delegate=yes`, and may
/// rearrange or kill cgroups made in it; as root the subtree is writable all the same, so being
/// writable proves nothing there.
///
/// What systemd leaves (v251 and later, Debian 12's 252 among them): a service's processes get
/// `$INVOCATION_ID`, and the unit's cgroup carries the same id in the extended attribute
/// `trusted.invocation_id` (`user.invocation_id` too), and `trusted.delegate` (`user.delegate`)
/// set to `1` when it is delegated. Both ids equal means systemd started this process in this very
/// cgroup as that service; a scope (`systemd-run --scope`, a login session) sets no
/// `$INVOCATION_ID`, and a process moved elsewhere is not in the cgroup that carries it.
enum SystemdDelegation {
    /// What systemd marked on a cgroup.
    struct Marks: Equatable {
        /// `trusted.invocation_id` (or `user.invocation_id`): the unit's invocation, nil when unmarked.
        var invocationID: String?
        /// `trusted.delegate` (or `user.delegate`): "1" when the unit has `Delegate=yes`.
        var delegate: String?
    }

    /// Why cgroup v2 in `directory`, this process's own cgroup, must be passed over, or nil when it
    /// is not a systemd service's or the service delegated it. `invocationID`: `$INVOCATION_ID`.
    static func refusal(directory: String, invocationID: String?, marks: Marks) -> FreezerUnusable? {
        guard let invocationID, !invocationID.isEmpty, marks.invocationID == invocationID, marks.delegate != "1" else {
            return nil
        }
        return FreezerUnusable("cgroup v2 at \(directory) is a systemd service's cgroup that was not delegated to it "
                               + "(no Delegate=yes): systemd owns it, and may move or kill what is made in it",
                               cause: .notDelegated)
    }
}
