import Testing
@testable import SuperviseConfig
@testable import SuperviseSystem

/// A child's `user`, `group`, `groups`, `capabilities` and `allow-new-privileges`: resolved
/// when the file is read, so a name that doesn't exist stops the run before anything starts.
@Suite(.timeLimit(.minutes(5))) struct PrivilegeKeysTests {
    private func parse(_ text: String) throws -> [ChildSpec] {
        try ConfigFile.parse(text: text, path: "test.toml", commandLine: SettingsOverrides())
    }

    private func problem(_ text: String) throws -> String {
        let error = try #require(throws: UsageError.self) { try parse(text) }
        return error.message
    }

    @Test func readsEveryPrivilegeKey() throws {
        let spec = try #require(try parse("""
            [child.web]
            command = ["./web"]
            user = "root"
            group = 100
            groups = ["root", 4000000]
            capabilities = ["cap_net_bind_service"]
            allow-new-privileges = true
            """).first)
        #expect(spec.privileges.identity == ChildIdentity(uid: 0, gid: 100, groups: [0, 4_000_000], userName: "root",
                                                          home: spec.privileges.identity?.home))
        #expect(spec.privileges.capabilities == CapabilitySet(mask: 1 << 10))
        #expect(spec.privileges.allowsNewPrivileges)
        #expect(spec.environment["USER"] == "root" && spec.environment["LOGNAME"] == "root" && spec.environment["HOME"] != nil)
    }

    @Test func theChildsOwnEnvironmentWinsOverTheLoginVariables() throws {
        let spec = try #require(try parse("""
            [child.web]
            command = ["./web"]
            user = 0
            env = { HOME = "/srv/web" }
            """).first)
        #expect(spec.environment["HOME"] == "/srv/web" && spec.environment["USER"] == "root")
    }

    @Test func aChildWithoutPrivilegeKeysIsNotConfined() throws {
        let spec = try #require(try parse("[child.web]\ncommand = [\"./web\"]").first)
        #expect(!spec.privileges.isConfined && spec.environment.isEmpty)
    }

    @Test(arguments: [
        ("user = \"no-such-user-here\"", "test.toml:3: [child.web] user: no user named 'no-such-user-here'"),
        ("user = \"root\"\ngroup = \"no-such-group-here\"", "test.toml:3: [child.web] user: no group named 'no-such-group-here'"),
        ("group = \"root\"", "test.toml:3: [child.web] group and groups need a user"),
        ("capabilities = [\"cap_fly\"]", "test.toml:3: [child.web] capabilities: unknown capability 'cap_fly'"),
        ("capabilities = \"cap_kill\"", "test.toml:3: [child.web] capabilities: expected an array"),
        ("user = -1", "test.toml:3: [child.web] user: expected a name or a number"),
        ("allow-new-privileges = 1", "test.toml:3: [child.web] allow-new-privileges: expected true or false"),
    ])
    func mistakesNameTheLineAndTheKey(line: String, message: String) throws {
        let text = try problem("[child.web]\ncommand = [\"./web\"]\n" + line)
        #expect(text.hasPrefix(message), "\(text)")
    }

    @Test func privilegeKeysBelongInAChildsTable() throws {
        let text = try problem("user = \"root\"\n[child.web]\ncommand = [\"./web\"]")
        #expect(text.contains("belongs in a child's table"), "\(text)")
    }
}
