/// Who a child runs as, as numbers the spawner applies: uid, gid and the supplementary groups.
public struct ChildIdentity: Equatable, Sendable {
    public var uid: UInt32
    public var gid: UInt32
    /// Exactly the supplementary groups the child gets.
    public var groups: [UInt32]
    /// The passwd entry's name and home directory (for `USER`, `LOGNAME`, `HOME`), when the
    /// uid has one.
    public var userName: String?
    public var home: String?

    public init(uid: UInt32, gid: UInt32, groups: [UInt32], userName: String? = nil, home: String? = nil) {
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.userName = userName
        self.home = home
    }

    /// The variables a login as this user sets, as `runuser` does: `HOME`, `USER`, `LOGNAME`.
    public var loginEnvironment: [String: String] {
        var variables: [String: String] = [:]
        if let home { variables["HOME"] = home }
        if let userName {
            variables["USER"] = userName
            variables["LOGNAME"] = userName
        }
        return variables
    }
}
