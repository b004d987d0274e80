import Glibc
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct SignalNameTests {
    @Test(arguments: [("TERM", SIGTERM), ("SIGINT", SIGINT), ("hup", SIGHUP), ("10", SIGUSR1), ("sigquit", SIGQUIT)])
    func namesAndNumbers(text: String, signal: Int32) throws {
        #expect(try SignalName.parse(text) == signal)
    }

    @Test(arguments: ["STOP", "19", "CONT", "0", "65", "", "TERMINATE"])
    func refused(text: String) {
        #expect(throws: UsageError.self) { try SignalName.parse(text) }
    }

    @Test func configKeysSetTheStopSignalAndTaskLimit() throws {
        let specs = try ConfigFile.parse(text: """
            stop-signal = "INT"
            max-tasks = 8
            [child.a]
            command = ["true"]
            [child.b]
            command = ["true"]
            stop-signal = 1
            """, path: "t.toml", commandLine: SettingsOverrides())
        #expect(specs.map(\.settings.stopSignal) == [SIGINT, SIGHUP])
        #expect(specs.map(\.settings.maxOpenTasks) == [8, 8])
        #expect(throws: UsageError.self) {
            try ConfigFile.parse(text: "max-tasks = 0\n[child.a]\ncommand = [\"true\"]\n", path: "t.toml",
                                 commandLine: SettingsOverrides())
        }
        #expect(throws: UsageError.self) {
            try ConfigFile.parse(text: "stop-signal = \"STOP\"\n[child.a]\ncommand = [\"true\"]\n", path: "t.toml",
                                 commandLine: SettingsOverrides())
        }
    }
}
