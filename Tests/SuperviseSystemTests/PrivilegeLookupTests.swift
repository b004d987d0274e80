import Testing
@testable import SuperviseSystem

/// Names to numbers before a fork: users and groups from the system's databases, capabilities
/// from libcap. Needs no privilege: only lookups.
@Suite(.timeLimit(.minutes(5))) struct PrivilegeLookupTests {
    @Test func capabilityNamesBecomeTheirBits() throws {
        let set = try CapabilitySet.parse(["cap_net_bind_service", "CAP_KILL", " sys_admin "])
        #expect(set.mask == (1 << 10) | (1 << 5) | (1 << 21))
        #expect(set.names == ["cap_kill", "cap_net_bind_service", "cap_sys_admin"])
        #expect(try CapabilitySet.parse([]).mask == 0)
    }

    @Test(arguments: ["cap_fly", "", "cap_kill,cap_chown", "cap_kill;", "99", "cap_2"])
    func anUnknownCapabilityIsNamedInTheError(name: String) {
        let error = #expect(throws: PrivilegeLookupError.self) { try CapabilitySet.parse(["cap_kill", name]) }
        #expect(error?.message.hasPrefix("unknown capability '\(name)'") == true, "\(error?.message ?? "")")
    }

    @Test func theKernelKnowsAtLeastTheClassicCapabilities() {
        // CAP_AUDIT_READ (37) is in every kernel since 3.16.
        #expect(CapabilitySet.lastKnown >= 37 && CapabilitySet.lastKnown <= 63)
    }

    @Test func aUserByNameOrNumberHasItsGroupHomeAndGroupList() throws {
        for user in ["root", "0"] {
            let root = try UserDatabase.identity(user: user)
            #expect(root.uid == 0 && root.gid == 0 && root.groups.first == 0, "\(root)")
            #expect(root.userName == "root" && root.home != nil)
            #expect(root.loginEnvironment["USER"] == "root" && root.loginEnvironment["LOGNAME"] == "root")
        }
    }

    @Test func aGroupAndGroupsOverrideTheUsersOwn() throws {
        let identity = try UserDatabase.identity(user: "root", group: "100", groups: ["root", "4000000"])
        #expect(identity.gid == 100 && identity.groups == [0, 4_000_000])
        let none = try UserDatabase.identity(user: "root", groups: [])
        #expect(none.groups.isEmpty)
    }

    @Test func aUidWithoutAnEntryNeedsAGroupAndHasNoLoginVariables() throws {
        let error = #expect(throws: PrivilegeLookupError.self) { try UserDatabase.identity(user: "4000000") }
        #expect(error?.message.contains("give one as 4000000:GROUP") == true)
        let identity = try UserDatabase.identity(user: "4000000", group: "4000001")
        #expect(identity.uid == 4_000_000 && identity.gid == 4_000_001 && identity.groups == [4_000_001])
        #expect(identity.loginEnvironment.isEmpty)
    }

    @Test(arguments: [("no-such-user-here", nil), ("root", "no-such-group-here")] as [(String, String?)])
    func anUnknownNameIsAnError(user: String, group: String?) {
        let error = #expect(throws: PrivilegeLookupError.self) { try UserDatabase.identity(user: user, group: group) }
        #expect(error?.message.contains("no-such-") == true, "\(error?.message ?? "")")
    }
}
