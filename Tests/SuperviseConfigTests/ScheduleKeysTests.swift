import SuperviseLifecycle
import SuperviseProtocol
import Testing
@testable import SuperviseConfig

/// A child's `[child.NAME.schedule.ID]` tables, and `refresh-time` / `processing-time`.
@Suite(.timeLimit(.minutes(5))) struct ScheduleKeysTests {
    private func parse(_ text: String, commandLine: SettingsOverrides = SettingsOverrides()) throws -> ConfigRun {
        try ConfigFile.parseRun(text: text, path: "test.toml", commandLine: commandLine)
    }

    private func problem(_ text: String) throws -> String {
        try #require(throws: UsageError.self) { try parse(text) }.message
    }

    @Test func scheduleTablesBecomeConfiguredSchedules() throws {
        let run = try parse("""
            [child.indexer]
            command = ["./indexer"]
            [child.indexer.schedule.compact]
            kind = "processing"
            every = "15m"
            requires = ["idle", "power"]
            [child.indexer.schedule.sync]
            every = 60
            """)
        #expect(run.children[0].schedules == [
            ConfiguredSchedule(id: TaskID("compact")!, kind: .processing, every: .seconds(900), requires: [.idle, .power]),
            ConfiguredSchedule(id: TaskID("sync")!, kind: .refresh, every: .seconds(60)),
        ])
    }

    @Test func taskTimesAreSettingsWithTheUsualOrder() throws {
        let run = try parse("""
            refresh-time = "20s"
            [child.a]
            command = ["./a"]
            processing-time = "10m"
            """, commandLine: SettingsOverrides(refreshTime: .seconds(40)))
        #expect(run.children[0].settings.refreshTime == .seconds(40) && run.children[0].settings.processingTime == .seconds(600))
        #expect(try problem("refresh-time = 1\n[child.a]\ncommand = [\"a\"]")
            == "test.toml:2: [child.a] --refresh-time (1s) must be longer than --expiry-warning (5s) (from the file's "
            + "defaults, the command line and this table)")
    }

    @Test func eachMistakeIsOneLineWithTheKey() throws {
        let head = "[child.a]\ncommand = [\"a\"]\n"
        #expect(try problem(head + "[child.a.schedule.sync]\nkind = \"refresh\"")
            == "test.toml:3: [child.a] schedule.sync: every: missing or 0: give how often it runs, e.g. every = \"15m\"")
        #expect(try problem(head + "[child.a.schedule.sync]\nevery = \"1m\"\nkind = \"soon\"")
            == "test.toml:5: [child.a] schedule.sync kind: unknown value 'soon': expected refresh or processing")
        #expect(try problem(head + "[child.a.schedule.sync]\nevery = \"1m\"\nrequires = [\"storage\"]")
            == "test.toml:5: [child.a] schedule.sync requires: unknown value 'storage': expected idle, power or network")
        #expect(try problem(head + "[child.a.schedule.sync]\nevry = \"1m\"")
            == "test.toml:4: [child.a] schedule.sync evry: unknown key (did you mean 'every'?): expected one of every, kind, requires")
        #expect(try problem(head + "[child.a.schedule.\"bad/id\"]\nevery = 1")
            == "test.toml:3: [child.a] schedule.bad/id: not a task ID: use 1 to 64 of letters, digits, '.', '_' and '-'")
        #expect(try problem(head + "schedule = 5")
            == "test.toml:3: [child.a] schedule: expected [child.NAME.schedule.ID] tables, found an integer")
        #expect(try problem("schedule = {}\n" + head).hasPrefix("test.toml:1: schedule: belongs in a child's table"))
    }
}

/// `schedules` and `run-task NAME ID`.
@Suite(.timeLimit(.minutes(5))) struct ScheduleCommandParserTests {
    @Test func parsesBothCommands() throws {
        #expect(try ControlParser.parse("schedules") == .schedules)
        #expect(try ControlParser.parse("run-task indexer compact") == .runTask(.named("indexer"), id: TaskID("compact")!))
        #expect(try ControlParser.parse("run-task all sync") == .runTask(.all, id: TaskID("sync")!))
    }

    @Test func mistakesSayWhatIsExpected() {
        func problem(_ line: String) -> String? {
            do throws(ControlLineError) {
                _ = try ControlParser.parse(line)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem("schedules x") == "unexpected word: schedules takes no arguments")
        #expect(problem("run-task") == "missing NAME: expected run-task NAME ID (ctl schedules lists them)")
        #expect(problem("run-task a") == "missing ID: expected run-task NAME ID (ctl schedules lists them)")
        #expect(problem("run-task a b c") == "unexpected word: expected run-task NAME ID (ctl schedules lists them)")
        #expect(problem("run-task a b/c") == "invalid ID: expected 1 to 64 of letters, digits, '.', '_' and '-'")
    }
}
