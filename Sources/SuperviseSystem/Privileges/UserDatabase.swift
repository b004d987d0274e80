import Glibc

/// Users and groups by name or number, from the system's databases (getpwnam_r, getgrnam_r,
/// getgrouplist: `/etc/passwd`, `/etc/group` or whatever NSS is configured).
public enum UserDatabase {
    /// The identity of `user` (a name or a uid), with `group` (a name or a gid; default: the
    /// user's own) and `groups` as the supplementary groups (default: the user's groups from
    /// the group database, as `runuser` and `initgroups` give them).
    public static func identity(user: String, group: String? = nil, groups: [String]? = nil)
        throws(PrivilegeLookupError) -> ChildIdentity
    {
        let entry = try passwdEntry(user)
        let gid: UInt32
        if let group {
            gid = try groupID(group)
        } else if let entry {
            gid = entry.gid
        } else {
            throw PrivilegeLookupError("uid \(user) has no passwd entry, so no group of its own: "
                + "give one as \(user):GROUP")
        }
        let supplementary: [UInt32]
        if let groups {
            var resolved: [UInt32] = []
            for name in groups {
                resolved.append(try groupID(name))
            }
            supplementary = resolved
        } else if let entry {
            supplementary = groupList(of: entry.name, gid: gid)
        } else {
            supplementary = [gid]
        }
        return ChildIdentity(uid: entry?.uid ?? UInt32(user)!, gid: gid, groups: supplementary,
                             userName: entry?.name, home: entry?.home)
    }

    /// The passwd entry of a name or uid; nil for a uid without one. An unknown name is an error.
    private static func passwdEntry(_ user: String) throws(PrivilegeLookupError)
        -> (name: String, uid: UInt32, gid: UInt32, home: String)?
    {
        let number = UInt32(user)
        guard !user.isEmpty, !user.utf8.contains(0) else {
            throw PrivilegeLookupError("'\(user)' is not a user name or uid")
        }
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        let result = withLookupBuffer { buffer in
            if let number {
                getpwuid_r(number, &entry, buffer.baseAddress!, buffer.count, &found)
            } else {
                getpwnam_r(user, &entry, buffer.baseAddress!, buffer.count, &found)
            }
        } copy: {
            found == nil ? nil : (String(cString: entry.pw_name), entry.pw_uid, entry.pw_gid, String(cString: entry.pw_dir))
        }
        if result.status != 0 && result.status != ENOENT {
            throw PrivilegeLookupError("cannot look up user '\(user)': \(String(cString: strerror(result.status)))")
        }
        if result.value == nil && number == nil {
            throw PrivilegeLookupError("no user named '\(user)' on this system (see getent passwd)")
        }
        return result.value
    }

    /// The gid of a group name or number (a number need not have an entry).
    public static func groupID(_ group: String) throws(PrivilegeLookupError) -> UInt32 {
        if let number = UInt32(group) { return number }
        guard !group.isEmpty, !group.utf8.contains(0) else {
            throw PrivilegeLookupError("'\(group)' is not a group name or gid")
        }
        var entry = Glibc.group()
        var found: UnsafeMutablePointer<Glibc.group>?
        let result = withLookupBuffer { buffer in
            getgrnam_r(group, &entry, buffer.baseAddress!, buffer.count, &found)
        } copy: {
            found == nil ? nil : entry.gr_gid
        }
        if result.status != 0 && result.status != ENOENT {
            throw PrivilegeLookupError("cannot look up group '\(group)': \(String(cString: strerror(result.status)))")
        }
        guard let gid = result.value else {
            throw PrivilegeLookupError("no group named '\(group)' on this system (see getent group)")
        }
        return gid
    }

    /// `name`'s groups in the group database, `gid` first, as `initgroups` would set them.
    private static func groupList(of name: String, gid: UInt32) -> [UInt32] {
        var count: Int32 = 32
        while true {
            var list = [gid_t](repeating: 0, count: Int(count))
            let wanted = count
            if getgrouplist(name, gid, &list, &count) >= 0 {
                return Array(list.prefix(Int(count)))
            }
            // -1: too small; `count` now says how many there are.
            count = max(count, wanted * 2)
        }
    }

    /// Runs a `*_r` lookup with a buffer that grows on ERANGE, and copies what it found out
    /// before the buffer goes.
    private static func withLookupBuffer<Value>(
        _ lookup: (UnsafeMutableBufferPointer<CChar>) -> Int32, copy: () -> Value?
    ) -> (status: Int32, value: Value?) {
        var size = 1024
        while true {
            let outcome: (status: Int32, value: Value?)? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) {
                buffer in
                let status = lookup(buffer)
                if status == ERANGE && size < 1 << 20 { return nil }
                return (status, status == 0 ? copy() : nil)
            }
            if let outcome { return outcome }
            size *= 2
        }
    }
}
