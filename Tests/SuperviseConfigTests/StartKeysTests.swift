import Testing
@testable import SuperviseConfig

/// `autostart` and `priority` (top level or per child), `suspended-memory` (top level only).
@Suite(.timeLimit(.minutes(5))) struct StartKeysTests {
    private func parse(_ text: String) throws -> ConfigRun {
        try ConfigFile.parseRun(text: text, path: "test.toml", commandLine: SettingsOverrides())
    }

    private func problem(_ text: String) throws -> String {
        try #require(throws: UsageError.self) { try parse(text) }.message
    }

    @Test func defaultsStartEveryChildWithPriorityZeroAndNoBudget() throws {
        let run = try parse("[child.a]\ncommand = [\"./a\"]")
        #expect(run.children[0].autostart && run.children[0].priority == 0 && run.suspendedMemory == nil)
    }

    @Test func theTopLevelIsADefaultThatAChildOverrides() throws {
        let run = try parse("""
            autostart = false
            priority = 3
            suspended-memory = "1G"
            [child.a]
            command = ["./a"]
            [child.b]
            command = ["./b"]
            autostart = true
            priority = -2
            """)
        #expect(run.children.map(\.autostart) == [false, true])
        #expect(run.children.map(\.priority) == [3, -2])
        #expect(run.suspendedMemory == 1 << 30)
        #expect(try parse("suspended-memory = 4096\n[child.a]\ncommand = [\"./a\"]").suspendedMemory == 4096)
    }

    @Test func badValuesAndPlacesAreOneLineErrors() throws {
        #expect(try problem("[child.a]\ncommand = [\"./a\"]\nsuspended-memory = \"1G\"")
            == "test.toml:3: [child.a] suspended-memory: concerns the whole run: put it at the top of the file")
        #expect(try problem("suspended-memory = \"1T\"\n[child.a]\ncommand = [\"./a\"]").hasPrefix(
            "test.toml:1: suspended-memory: invalid size '1T'"))
        #expect(try problem("suspended-memory = -1\n[child.a]\ncommand = [\"./a\"]").hasPrefix(
            "test.toml:1: suspended-memory: expected bytes"))
        #expect(try problem("[child.a]\ncommand = [\"./a\"]\nautostart = \"no\"")
            == "test.toml:3: [child.a] autostart: expected true or false, found a string")
        #expect(try problem("[child.a]\ncommand = [\"./a\"]\npriority = 1.5").hasPrefix(
            "test.toml:3: [child.a] priority: expected a whole number from -1000000 to 1000000"))
    }
}
