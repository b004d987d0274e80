import Foundation
import SuperviseProtocol
import Testing
@testable import SuperviseConfig
@testable import SuperviseLifecycle
@testable import SuperviseSystem
import SuperviseTestSupport

@Suite(.timeLimit(.minutes(5))) struct ConfigFileTests {
    private func parse(_ text: String, commandLine: SettingsOverrides = SettingsOverrides()) throws -> [ChildSpec] {
        try ConfigFile.parse(text: text, path: "test.toml", commandLine: commandLine)
    }

    /// The message of the error `text` is refused with.
    private func problem(_ text: String, commandLine: SettingsOverrides = SettingsOverrides()) throws -> String {
        let error = try #require(throws: UsageError.self) { try parse(text, commandLine: commandLine) }
        #expect(!error.message.contains("\n"), "an error is one line")
        return error.message
    }

    @Test func aMinimalChildGetsTheBuiltInDefaults() throws {
        let specs = try parse("[child.api]\ncommand = [\"./api\"]")
        var expected = ChildSpec(name: "api", command: ["./api"])
        expected.configLocation = ConfigLocation(path: "test.toml", line: 1)
        #expect(specs == [expected])
        #expect(specs[0].settings == LifecycleSettings())
        #expect(specs[0].restart.delay == .seconds(1) && specs[0].restart.delayMax == .seconds(30))
    }

    /// A GitHub annotation points at the child's table (issue 28): its header's line, or the line of
    /// the key that made it.
    @Test func eachChildRemembersWhereTheFileDefinesIt() throws {
        let specs = try parse("""
            window = "1s"

            [child.web]
            command = ["./web"]
            # a comment
            [child.worker]
            window = "2s"
            command = ["./worker"]
            [child]
            inline = { command = ["./inline"] }
            """)
        #expect(specs.map(\.name) == ["web", "worker", "inline"])
        #expect(specs.map(\.configLocation) == [3, 6, 10].map { ConfigLocation(path: "test.toml", line: $0) })
    }

    @Test func readsEveryChildKeyInFileOrder() throws {
        let specs = try parse("""
            [child.zeta]
            command = ["./api", "--port", "8080"]
            env = { LOG_LEVEL = "debug", EMPTY = "" }
            cwd = "/srv/api"
            restart = "on-failure"
            restart-delay = "500ms"
            restart-delay-max = 10
            restart-after-violation = true

            [child.alpha]
            command = ["python3", "batch.py"]
            launch = "background"
            on-window-overrun = "suspend"
            freezer = "sigstop"
            """)
        #expect(specs.map(\.name) == ["zeta", "alpha"])
        let zeta = specs[0], alpha = specs[1]
        #expect(zeta.command == ["./api", "--port", "8080"])
        #expect(zeta.environment == ["LOG_LEVEL": "debug", "EMPTY": ""])
        #expect(zeta.workingDirectory == "/srv/api")
        #expect(zeta.restart.policy == .onFailure)
        #expect(zeta.restart.delay == .milliseconds(500) && zeta.restart.delayMax == .seconds(10))
        #expect(zeta.restart.afterViolation)
        #expect(alpha.settings.launch == .background && alpha.settings.onWindowOverrun == .suspend)
        #expect(alpha.freezer == .sigstop && alpha.restart.policy == .never && alpha.workingDirectory == nil)
    }

    @Test func precedenceIsDefaultsThenTopLevelThenCommandLineThenChild() throws {
        let text = """
            window = "2s"
            limit = "40s"
            freezer = "cgroup1"
            launch = "background"
            restart = "always"

            [child.own]
            command = ["a"]
            window = "4s"
            freezer = "cgroup2"
            restart = "never"

            [child.inherits]
            command = ["b"]
            """
        let commandLine = SettingsOverrides(window: .seconds(3), freezer: .sigstop)
        let specs = try parse(text, commandLine: commandLine)
        let own = specs[0].settings, inherits = specs[1].settings
        #expect(own.window == .seconds(4), "the child's table beats the command line")
        #expect(inherits.window == .seconds(3), "the command line beats the top level")
        #expect(own.limit == .seconds(40) && inherits.limit == .seconds(40), "the top level beats the defaults")
        #expect(inherits.grace == .seconds(5), "built-in defaults fill the rest")
        #expect(inherits.launch == .background)
        #expect(specs[0].freezer == .cgroup2 && specs[1].freezer == .sigstop)
        #expect(specs[0].restart.policy == .never && specs[1].restart.policy == .always)
    }

    @Test func everySettingKeyIsReadAtBothLevels() throws {
        let settings = """
            window = "1s"
            limit = "20s"
            expiry-warning = "3s"
            grace = "7s"
            freeze-timeout = "250ms"
            freezer = "cgroup2"
            on-window-overrun = "suspend"
            launch = "background"
            aware = true
            launch-timeout = "8s"
            """
        for text in ["\(settings)\n[child.a]\ncommand = [\"a\"]", "[child.a]\ncommand = [\"a\"]\n\(settings)"] {
            let spec = try #require(try parse(text).first)
            var expected = LifecycleSettings()
            expected.window = .seconds(1)
            expected.limit = .seconds(20)
            expected.expiryWarning = .seconds(3)
            expected.grace = .seconds(7)
            expected.freezeTimeout = .milliseconds(250)
            expected.onWindowOverrun = .suspend
            expected.launch = .background
            expected.aware = true
            expected.launchTimeout = .seconds(8)
            #expect(spec.settings == expected)
            #expect(spec.freezer == .cgroup2)
        }
    }

    @Test(arguments: [
        ("\"250ms\"", Duration.milliseconds(250)),
        ("2", .seconds(2)),
        ("2.5", .milliseconds(2500)),
        ("0.1", .milliseconds(100)),
        ("1e0", .seconds(1)),
        ("\"1.5m\"", .seconds(90)),
        ("0", .zero),
    ])
    func durationsAreStringsWithUnitsOrSeconds(value: String, expected: Duration) throws {
        let spec = try #require(try parse("grace = \(value)\n[child.a]\ncommand = [\"a\"]").first)
        #expect(spec.settings.grace == expected)
    }

    @Test func settingsOverridesApplyOnlyWhatIsGiven() {
        let none = SettingsOverrides().resolved()
        #expect(none.settings == LifecycleSettings() && none.freezer == .auto)
        let (settings, freezer) = SettingsOverrides(window: .seconds(1), limit: .seconds(2), expiryWarning: .seconds(1),
                                                    grace: .zero, freezeTimeout: .seconds(3), onWindowOverrun: .suspend,
                                                    launch: .background, freezer: .cgroup1).resolved()
        #expect(settings.window == .seconds(1) && settings.limit == .seconds(2) && settings.expiryWarning == .seconds(1))
        #expect(settings.grace == .zero && settings.freezeTimeout == .seconds(3))
        #expect(settings.onWindowOverrun == .suspend && settings.launch == .background && freezer == .cgroup1)
    }

    @Test func aLaterLevelWinsWhereItGivesAValue() {
        let merged = SettingsOverrides(window: .seconds(1), grace: .seconds(2))
            .merged(with: SettingsOverrides(grace: .seconds(3), freezer: .sigstop))
        #expect(merged == SettingsOverrides(window: .seconds(1), grace: .seconds(3), freezer: .sigstop))
    }

    /// The README's CI line once failed: `--window 0.5 --limit 5` left the expiry warning at 5 s.
    @Test(arguments: [
        (SettingsOverrides(limit: .seconds(5)), Duration.seconds(5), Duration.milliseconds(2500)),
        (SettingsOverrides(window: .milliseconds(500), limit: .seconds(5)), .milliseconds(500), .milliseconds(2500)),
        (SettingsOverrides(limit: .seconds(1)), .seconds(1), .milliseconds(500)),
        (SettingsOverrides(limit: .seconds(60)), .seconds(5), .seconds(5)),
        (SettingsOverrides(limit: .seconds(4), expiryWarning: .seconds(1)), .seconds(4), .seconds(1)),
    ])
    func defaultsLeftAloneAreFittedToAShortLimit(given: SettingsOverrides, window: Duration, expiryWarning: Duration) {
        let settings = given.resolved().settings
        #expect(settings.window == window && settings.expiryWarning == expiryWarning)
        #expect(settings.problem == nil)
    }

    @Test func valuesGivenAreKeptAndJudged() {
        let settings = SettingsOverrides(limit: .seconds(2), expiryWarning: .seconds(5)).resolved().settings
        #expect(settings.problem == "--expiry-warning (5s) must be shorter than --limit (2s)")
    }

    // MARK: Errors

    @Test func syntaxErrorsNameTheFileAndLine() throws {
        #expect(try problem("window = \"5s\"\n[child.a\n") == "test.toml:2: expected ']' to close the table header")
    }

    @Test func unknownKeysSuggestTheClosest() throws {
        #expect(try problem("windw = 1\n[child.a]\ncommand = [\"a\"]") == "test.toml:1: windw: unknown key "
            + "(did you mean 'window'?): expected one of window, limit, expiry-warning, grace, freeze-timeout, "
            + "freezer, on-window-overrun, launch, stop-signal, max-tasks, aware, launch-timeout, refresh-time, "
            + "processing-time, restart, restart-delay, "
            + "restart-delay-max, restart-after-violation, autostart, priority, suspended-memory, memory-warnings, "
            + "reclaim-on-pressure, pressure-stall, pressure-window, pressure-low, pressure-critical, reclaim-pause, child")
        #expect(try problem("[child.a]\ncomand = [\"a\"]").hasPrefix(
            "test.toml:2: [child.a] comand: unknown key (did you mean 'command'?): expected one of command, env, cwd,"))
        #expect(try problem("[child.a]\ncommand = [\"a\"]\nreport = \"x.json\"").hasPrefix(
            "test.toml:3: [child.a] report: unknown key: expected one of command,"))
    }

    @Test func childKeysAtTheTopLevelPointToTheChildTable() throws {
        #expect(try problem("command = [\"a\"]\n[child.a]\ncommand = [\"a\"]")
            == "test.toml:1: command: belongs in a child's table: put it under [child.NAME]")
    }

    @Test(arguments: [
        ("window = true", "test.toml:1: window: expected a duration: a number of seconds or a string like \"2s\" "
            + "or \"250ms\", found a boolean"),
        ("freezer = 1", "test.toml:1: freezer: expected a string (auto, cgroup2, cgroup1 or sigstop), found an integer"),
        ("[child.a]\ncommand = \"./a --x\"", "test.toml:2: [child.a] command: expected an array of strings like "
            + "[\"program\", \"arg\"], found a string"),
        ("[child.a]\ncommand = [\"./a\", 1]", "test.toml:2: [child.a] command: expected an array of strings, found "
            + "an integer in it"),
        ("[child.a]\ncommand = [\"a\"]\nenv = \"A=1\"", "test.toml:3: [child.a] env: expected a table of strings like "
            + "{ NAME = \"value\" }, found a string"),
        ("[child.a]\ncommand = [\"a\"]\nenv = { PORT = 8080 }", "test.toml:3: [child.a] env.PORT: expected a string, "
            + "found an integer (quote numbers: \"8080\")"),
        ("[child.a]\ncommand = [\"a\"]\nenv = { \"A=B\" = \"x\" }", "test.toml:3: [child.a] env: invalid variable "
            + "name 'A=B': it must be non-empty, without '=' or NUL"),
        ("[child.a]\ncommand = [\"a\"]\ncwd = 1", "test.toml:3: [child.a] cwd: expected a string, found an integer"),
        ("[child.a]\ncommand = [\"a\"]\ncwd = \"\"", "test.toml:3: [child.a] cwd: expected a directory path, found ''"),
        ("[child.a]\ncommand = [\"a\"]\nrestart-after-violation = \"yes\"", "test.toml:3: [child.a] "
            + "restart-after-violation: expected true or false, found a string"),
        ("aware = \"yes\"", "test.toml:1: aware: expected true or false, found a string"),
        ("child = 1", "test.toml:1: child: expected [child.NAME] tables, found an integer"),
        ("[child]\napi = 1", "test.toml:2: child.api: expected a [child.api] table, found an integer"),
    ])
    func wrongTypes(text: String, message: String) throws {
        #expect(try problem(text) == message)
    }

    @Test func duplicateChildNames() throws {
        #expect(try problem("[child.a]\ncommand = [\"a\"]\n\n[child.a]\ncommand = [\"b\"]")
            == "test.toml:4: [child.a] is defined twice (first at line 1)")
        #expect(try problem("[child.a]\ncommand = [\"a\"]\n[child]\na = { command = [\"b\"] }")
            == "test.toml:4: duplicate key 'a' (first at line 1)")
    }

    @Test(arguments: ["", "# nothing\n", "window = \"2s\"\n", "[child]\n"])
    func noChildren(text: String) throws {
        #expect(try problem(text) == "test.toml: no children: add a [child.NAME] table with a command")
    }

    @Test func emptyOrMissingCommand() throws {
        let empty = "test.toml:2: [child.a] command: empty command: give the program and its arguments, "
            + "e.g. [\"./worker\", \"--fast\"]"
        #expect(try problem("[child.a]\ncommand = []") == empty)
        #expect(try problem("[child.a]\ncommand = [\"\", \"x\"]") == empty)
        #expect(try problem("\n[child.a]\ncwd = \"/\"")
            == "test.toml:2: [child.a] command: missing: add command = [\"program\", \"arg\", ...]")
    }

    @Test(arguments: [
        ("window = \"fast\"", "window: invalid duration 'fast': "),
        ("window = \"-2s\"", "window: invalid duration '-2s': must not be negative"),
        ("window = -1", "window: -1 is negative: durations must not be negative"),
        ("window = -0.5", "window: -0.5 is negative: durations must not be negative"),
        ("window = nan", "window: nan is not a duration: give seconds or a string like \"2s\""),
        ("window = inf", "window: inf is not a duration: give seconds or a string like \"2s\""),
        ("window = 9223372037", "window: 9223372037 seconds is too long"),
        ("restart-delay = \"soon\"", "restart-delay: invalid duration 'soon': "),
    ])
    func badDurations(line: String, message: String) throws {
        #expect(try problem("\(line)\n[child.a]\ncommand = [\"a\"]").hasPrefix("test.toml:1: \(message)"))
    }

    @Test(arguments: [
        ("freezer = \"zfs\"", "freezer: unknown value 'zfs': expected auto, cgroup2, cgroup1 or sigstop"),
        ("on-window-overrun = \"ignore\"", "on-window-overrun: unknown value 'ignore': expected kill or suspend"),
        ("launch = \"later\"", "launch: unknown value 'later': expected foreground or background"),
        ("restart = \"sometimes\"", "restart: unknown value 'sometimes': expected never, on-failure or always"),
    ])
    func badEnumValues(line: String, message: String) throws {
        #expect(try problem("[child.a]\ncommand = [\"a\"]\n\(line)") == "test.toml:3: [child.a] \(message)")
    }

    @Test func timingRulesAreCheckedOnTheMergedSettings() throws {
        #expect(try problem("window = \"40s\"\n\n[child.a]\ncommand = [\"a\"]")
            == "test.toml:3: [child.a] --window (40s) must not be longer than --limit (30s) (from the file's "
            + "defaults, the command line and this table)")
        let fromCommandLine = try problem("[child.a]\ncommand = [\"a\"]\nexpiry-warning = \"10s\"",
                                          commandLine: SettingsOverrides(limit: .seconds(10)))
        #expect(fromCommandLine.hasPrefix(
            "test.toml:1: [child.a] --expiry-warning (10s) must be shorter than --limit (10s)"))
        #expect(try problem("[child.a]\ncommand = [\"a\"]\nrestart-delay = 60")
            == "test.toml:1: [child.a] restart-delay-max (30s) must not be shorter than restart-delay (60s)")
        #expect(try problem("[child.a]\ncommand = [\"a\"]\naware = true\nlaunch-timeout = 0").hasPrefix(
            "test.toml:1: [child.a] --launch-timeout must be longer than 0"))
    }

    @Test(arguments: [
        ("[child.\"my api\"]", "child name 'my api' is not valid: use letters, digits, '.', '_' and '-'"),
        ("[child.\"a/b\"]", "child name 'a/b' is not valid: use letters, digits, '.', '_' and '-'"),
        ("[child.\"\"]", "child name '' is not valid: use letters, digits, '.', '_' and '-'"),
        ("[child.\"é\"]", "child name 'é' is not valid: use letters, digits, '.', '_' and '-'"),
        ("[child.all]", "child name 'all' is reserved (control commands use it for every child): choose another"),
    ])
    func badChildNames(header: String, message: String) throws {
        #expect(try problem("\(header)\ncommand = [\"a\"]") == "test.toml:1: \(message)")
    }

    @Test func quotedControlCharactersStayOnOneLine() throws {
        #expect(try problem("window = \"2\\ns\"\n[child.a]\ncommand = [\"a\"]")
            .hasPrefix("test.toml:1: window: invalid duration '2\\ns': "))
        #expect(try problem("[child.\"a\\rb\"]\ncommand = [\"a\"]")
            == "test.toml:1: child name 'a\\rb' is not valid: use letters, digits, '.', '_' and '-'")
        // Escaped as the log escapes a child's text (ControlEscapes), not Swift-style ("\u{1B}").
        #expect(try problem("[child.\"a\\u001bb\"]\ncommand = [\"a\"]")
            == "test.toml:1: child name 'a\\u001bb' is not valid: use letters, digits, '.', '_' and '-'")
        #expect(try problem("\u{07} = 1") == "test.toml:1: invalid key character '\\u0007'; quote keys that are not "
            + "A-Za-z0-9_-")
    }

    @Test func acceptsNamesOfLettersDigitsDotsUnderscoresAndDashes() throws {
        #expect(try parse("[child.\"Web-1_a.b\"]\ncommand = [\"a\"]").map(\.name) == ["Web-1_a.b"])
    }

    // MARK: Files

    @Test func loadReadsTheFile() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-config")
        defer { temporary.remove() }
        let url = temporary.url.appendingPathComponent("supervise.toml")
        try "[child.a]\ncommand = [\"/bin/true\"]\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try ConfigFile.load(path: url.path, commandLine: SettingsOverrides()).map(\.command) == [["/bin/true"]])
    }

    @Test func anUnreadableFileIsOneLine() throws {
        let error = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: "/nonexistent/supervise.toml", commandLine: SettingsOverrides())
        }
        #expect(error.message == "cannot read the config file '/nonexistent/supervise.toml': No such file or "
            + "directory: check the path given to --config")
        let directory = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: "/", commandLine: SettingsOverrides())
        }
        #expect(directory.message == "cannot read the config file '/': it is a directory, not a regular file: "
            + "give the path of a TOML file to --config")
    }

    @Test func aDeviceOrAFIFOIsRefusedWithoutBeingRead() throws {
        let zero = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: "/dev/zero", commandLine: SettingsOverrides())
        }
        #expect(zero.message == "cannot read the config file '/dev/zero': it is a character device, not a regular "
            + "file: give the path of a TOML file to --config")
        let temporary = TemporaryDirectory(prefix: "supervise-config")
        defer { temporary.remove() }
        let fifo = temporary.file("supervise.toml")
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let error = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: fifo, commandLine: SettingsOverrides())
        }
        #expect(error.message.contains("it is a FIFO, not a regular file"), "refused without waiting for a writer")
    }

    @Test func aFileOverTheSizeLimitIsRefused() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-config")
        defer { temporary.remove() }
        let url = temporary.url.appendingPathComponent("supervise.toml")
        let comment = "# " + String(repeating: "x", count: 1000) + "\n"
        let text = "[child.a]\ncommand = [\"/bin/true\"]\n" + String(repeating: comment, count: ConfigFile.maxFileSize / 1000)
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: url.path, commandLine: SettingsOverrides())
        }
        #expect(error.message == "cannot read the config file '\(url.path)': it is over 1048576 bytes (1 MiB): "
            + "check the path given to --config")
        let fits = "[child.a]\ncommand = [\"/bin/true\"]\n" + String(repeating: comment, count: ConfigFile.maxFileSize / 1003 - 1)
        try fits.write(to: url, atomically: true, encoding: .utf8)
        #expect(try ConfigFile.load(path: url.path, commandLine: SettingsOverrides()).count == 1)
    }

    @Test func invalidUTF8IsRefused() throws {
        let temporary = TemporaryDirectory(prefix: "supervise-config")
        defer { temporary.remove() }
        let url = temporary.url.appendingPathComponent("supervise.toml")
        try Data([0x61, 0x20, 0x3D, 0x20, 0x22, 0xFF, 0x22, 0x0A]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: UsageError.self) {
            try ConfigFile.load(path: url.path, commandLine: SettingsOverrides())
        }
        #expect(error.message == "\(url.path): not valid UTF-8: save the config file as UTF-8")
    }

    @Test func theExampleConfigIsValid() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/supervise.toml")
        let specs = try ConfigFile.load(path: example.path, commandLine: SettingsOverrides())
        #expect(specs.count >= 2)
    }
}
