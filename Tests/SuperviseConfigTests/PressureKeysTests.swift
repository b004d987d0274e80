import SuperviseLifecycle
import Testing
@testable import SuperviseConfig

/// `memory-warnings`, `reclaim-on-pressure` and the `pressure-*` keys: top level only, checked
/// against what the kernel takes, one line for each mistake.
@Suite(.timeLimit(.minutes(5))) struct PressureKeysTests {
    private static let child = "\n[child.a]\ncommand = [\"./a\"]\n"

    private func parse(_ top: String) throws -> MemoryPressure.Settings {
        try ConfigFile.parseRun(text: top + Self.child, path: "test.toml", commandLine: SettingsOverrides()).memoryPressure
    }

    private func problem(_ top: String) throws -> String {
        try #require(throws: UsageError.self) { try parse(top) }.message
    }

    @Test func byDefaultPressureIsNotWatched() throws {
        let settings = try parse("")
        #expect(settings == .standard && !settings.isWatched)
    }

    @Test func everyKeyIsRead() throws {
        let settings = try parse("""
            memory-warnings = true
            reclaim-on-pressure = "critical"
            pressure-stall = "300ms"
            pressure-window = "4s"
            pressure-low = 12.5
            pressure-critical = 30
            reclaim-pause = "3s"
            """)
        #expect(settings == MemoryPressure.Settings(warns: true, stall: .milliseconds(300), window: .seconds(4),
                                                    lowPercent: 12.5, criticalPercent: 30, reclaimLevel: .critical,
                                                    reclaimPause: .seconds(3)))
    }

    @Test func reclaimOnPressureTakesTrueFalseOrALevel() throws {
        #expect(try parse("reclaim-on-pressure = true").reclaimLevel == MemoryPressure.Settings.defaultReclaimLevel)
        #expect(try parse("reclaim-on-pressure = false").reclaimLevel == nil)
        #expect(try parse("reclaim-on-pressure = \"moderate\"").reclaimLevel == .moderate)
        #expect(try parse("reclaim-on-pressure = true").isWatched, "reclaim watches, and so warns")
        #expect(try problem("reclaim-on-pressure = \"none\"")
            == "test.toml:1: reclaim-on-pressure: expected true, false or a level (moderate, low or critical), found \"none\"")
        #expect(try problem("reclaim-on-pressure = \"high\"")
            == "test.toml:1: reclaim-on-pressure: unknown value 'high': expected moderate, low or critical")
    }

    @Test func badValuesAndPlacesAreOneLineErrors() throws {
        #expect(try problem("pressure-low = 0") == "test.toml:1: pressure-low: expected a percentage of time stalled, "
            + "more than 0 and at most 100, found 0")
        #expect(try problem("pressure-window = \"20s\"") == "test.toml: pressure-window must be from 500ms to 10s (the kernel's range)")
        #expect(try problem("pressure-stall = \"3s\"") == "test.toml: pressure-stall must be more than 0 and at most pressure-window")
        #expect(try problem("pressure-low = 50") == "test.toml: pressure-low and pressure-critical must be percentages "
            + "with 0 < low <= critical <= 100")
        let inChild = try #require(throws: UsageError.self) {
            try ConfigFile.parseRun(text: "[child.a]\ncommand = [\"./a\"]\nreclaim-on-pressure = true", path: "test.toml",
                                    commandLine: SettingsOverrides())
        }
        #expect(inChild.message == "test.toml:3: [child.a] reclaim-on-pressure: concerns the whole run: put it at the top of the file")
    }
}
