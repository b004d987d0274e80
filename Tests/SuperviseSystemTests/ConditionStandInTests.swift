import Foundation
import Glibc
import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem
import SuperviseTestSupport
import Testing

/// The conditions read from stand-in files, as a test or a container points the supervisor at
/// them, and from the kernel's own.
@Suite(.serialized) struct ConditionStandInTests {
    let directory = TemporaryDirectory(prefix: "supervise-conditions")

    private func write(_ text: String, to name: String) throws {
        let path = directory.file(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    private func cpu(_ avg10: String) -> String {
        "some avg10=\(avg10) avg60=0.00 avg300=0.00 total=10\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    }

    private var sources: ConditionSources {
        ConditionSources(
            cpuPressure: directory.file("cpu"), powerSupplies: directory.file("power_supply"),
            ipv4Routes: directory.file("route"), ipv6Routes: directory.file("ipv6_route"))
    }

    @Test func idleFollowsTheCPUPressureFile() throws {
        let conditions = MachineConditions(sources: sources)
        try write(cpu("2.50"), to: "cpu")
        #expect(try conditions.read(.idle).get())
        try write(cpu("10.00"), to: "cpu")
        #expect(try !conditions.read(.idle).get())
        try write("nonsense\n", to: "cpu")
        #expect(throws: ConditionUnreadable.self) { try conditions.read(.idle).get() }
        #expect(!conditions.held().contains(.idle))
    }

    @Test func powerFollowsTheSupplyDirectory() throws {
        let conditions = MachineConditions(sources: sources)
        #expect(try conditions.read(.power).get(), "no power_supply directory: no battery")
        try write("Mains\n", to: "power_supply/AC/type")
        try write("0\n", to: "power_supply/AC/online")
        try write("Battery\n", to: "power_supply/BAT0/type")
        try write("Discharging\n", to: "power_supply/BAT0/status")
        #expect(try !conditions.read(.power).get())
        try write("1\n", to: "power_supply/AC/online")
        #expect(try conditions.read(.power).get())
    }

    @Test func networkNeedsADefaultRouteThroughALinkThatIsUp() throws {
        let conditions = MachineConditions(sources: sources)
        let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        try write(header + "nosuch0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n", to: "route")
        #expect(try !conditions.read(.network).get(), "no ipv6_route file: no IPv6 routes; nosuch0 is no link")
        // lo is up and running in any network namespace a test runs in.
        try write(header + "lo\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n", to: "route")
        #expect(try conditions.read(.network).get())
        try FileManager.default.removeItem(atPath: directory.file("route"))
        #expect(throws: ConditionUnreadable.self) { try conditions.read(.network).get() }
    }

    @Test func theAwaitedConditionsAreReadAtOnceThenEveryRecheckInterval() throws {
        let watcher = ConditionWatcher(conditions: MachineConditions(sources: sources))
        let interval = ConditionWatcher.recheckInterval
        try write(cpu("50.00"), to: "cpu")
        let start = Instant(nanoseconds: 1_000_000_000)
        #expect(watcher.watch([], at: start) == nil, "nothing awaited: nothing to look at")
        #expect(watcher.watch([.idle, .power], at: start) == start, "newly awaited: looked at at once")
        #expect(watcher.held.isEmpty, "nothing is read before the look")
        watcher.look(at: start)
        #expect(watcher.held == [.power])
        #expect(try String(contentsOfFile: directory.file("cpu"), encoding: .utf8) == cpu("50.00"),
                "no pressure trigger is written to a plain file")

        try write(cpu("0.00"), to: "cpu")
        #expect(watcher.watch([.power, .idle], at: start + .seconds(1)) == start + interval,
                "the same awaited: nothing read, the same re-read")
        #expect(watcher.held == [.power])
        watcher.look(at: start + interval)
        #expect(watcher.held == [.idle, .power])
        #expect(watcher.watch([.power], at: start + interval) == start + interval * 2, "nothing new to read")
        #expect(watcher.held == [.power], "what is not awaited any more is forgotten")
        #expect(watcher.watch([], at: start + interval) == nil)
        #expect(watcher.held.isEmpty)
    }

    @Test func theKernelsFilesAreRead() throws {
        let conditions = MachineConditions()
        if access("/proc/pressure/cpu", R_OK) == 0 {
            _ = try conditions.read(.idle).get()
        } else {
            print("skipped idle: ConditionStandInTests: /proc/pressure/cpu is missing: this kernel has no PSI")
        }
        _ = try conditions.read(.power).get()
        _ = try conditions.read(.network).get()
    }
}

/// What a callback saw, kept by the test's own thread.
final class Recorded: @unchecked Sendable {
    var values: [Set<ScheduleCondition>] = []
}
