import Foundation
import Glibc
import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem
import SuperviseTestSupport
import Testing

/// The `network` condition for real, in a fresh network namespace of a thread of its own:
/// links and default routes made and removed with `ip`, read through `/proc/thread-self/net`.
/// The links are `ifb` (this kernel has no `dummy` module) and a `veth` pair, whose one end
/// has a carrier only while the other is up.
@Suite(.serialized) struct NetworkConditionTests {
    static let ip = "/usr/sbin/ip"

    /// The route tables of the calling thread's namespace (`/proc/net` is the main thread's).
    static let sources = ConditionSources(
        ipv4Routes: "/proc/thread-self/net/route", ipv6Routes: "/proc/thread-self/net/ipv6_route")

    /// Runs `body` on a new thread moved into a new network namespace, which ends with it;
    /// `nil`, with the reason printed, where one can't be made.
    static func inFreshNetworkNamespace(_ body: @escaping @Sendable () throws -> Void) throws -> Bool {
        guard access(ip, X_OK) == 0 else {
            print("skipped: NetworkConditionTests: \(ip) is missing")
            return false
        }
        final class Outcome: @unchecked Sendable {
            var error: (any Error)?
            var unshareErrno: Int32 = 0
        }
        let outcome = Outcome()
        let box = Unmanaged.passRetained(Box {
            guard unshareNetwork() == 0 else {
                outcome.unshareErrno = errno
                return
            }
            do { try body() } catch { outcome.error = error }
        }).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, box) == 0 else { throw POSIXError(.EAGAIN) }
        pthread_join(thread, nil)
        if outcome.unshareErrno != 0 {
            print("skipped: NetworkConditionTests: unshare(CLONE_NEWNET): \(String(cString: strerror(outcome.unshareErrno)))")
            return false
        }
        if let error = outcome.error { throw error }
        return true
    }

    /// unshare(CLONE_NEWNET), a GNU extension Swift's Glibc module does not show: 0, or -1
    /// with errno.
    static func unshareNetwork() -> Int32 {
        typealias Unshare = @convention(c) (Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "unshare") else { return -1 }
        let cloneNewNet: Int32 = 0x4000_0000
        return unsafeBitCast(symbol, to: Unshare.self)(cloneNewNet)
    }

    final class Box {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Runs `ip ARGUMENTS` in the calling thread's namespace; fails the test when it fails.
    static func ip(_ arguments: String) throws {
        let result = try runToEnd([ip] + arguments.split(separator: " ").map(String.init))
        #expect(result.status == 0, "ip \(arguments): \(result.output)")
    }

    @Test func aDefaultRouteThroughALinkThatIsUpIsANetwork() throws {
        _ = try Self.inFreshNetworkNamespace {
            let conditions = MachineConditions(sources: Self.sources)
            #expect(try !conditions.read(.network).get(), "a fresh namespace has no route")
            try Self.ip("link set lo up")
            try Self.ip("link add d0 type ifb")
            try Self.ip("link set d0 up")
            #expect(try !conditions.read(.network).get(), "a link that is up, and no default route")
            try Self.ip("route add default dev d0")
            #expect(try conditions.read(.network).get())
            try Self.ip("-6 route add default dev d0")
            try Self.ip("route del default dev d0")
            #expect(try conditions.read(.network).get(), "the IPv6 default route is enough")
            try Self.ip("link set d0 down")
            #expect(try !conditions.read(.network).get(), "the link is down: its routes are gone")
        }
    }

    @Test func aDefaultRouteThroughALinkWithoutACarrierIsNoNetwork() throws {
        _ = try Self.inFreshNetworkNamespace {
            let conditions = MachineConditions(sources: Self.sources)
            try Self.ip("link add v0 type veth peer name v1")
            try Self.ip("link set v0 up")
            try Self.ip("route add default dev v0")
            #expect(try !conditions.read(.network).get(), "v0 is up but v1 is down: no carrier")
            try Self.ip("link set v1 up")
            #expect(eventually(timeout: 5) { (try? conditions.read(.network).get()) == true },
                    "v1 up gives v0 a carrier")
        }
    }

    /// Waits for `condition` (which must not hold) with a watcher on `sources`, makes `change`,
    /// then runs the loop for up to 3 s without any look, so only a notification can wake it;
    /// what the watcher told.
    static func changesTold(
        waitingFor condition: ScheduleCondition, in sources: ConditionSources, after change: () throws -> Void
    ) throws -> [Set<ScheduleCondition>] {
        let loop = try EventLoop()
        let watcher = ConditionWatcher(conditions: MachineConditions(sources: sources))
        let changes = Recorded()
        watcher.attach(to: loop) { [unowned watcher] in changes.values.append(watcher.held) }
        let start = MonotonicClock.now()
        #expect(watcher.watch([condition], at: start) == start)
        watcher.look(at: start)
        #expect(watcher.held.isEmpty)
        try change()
        let deadline = start + .seconds(3)
        while changes.values.isEmpty, MonotonicClock.now() < deadline { loop.wait(until: deadline) }
        #expect(MonotonicClock.now() < start + ConditionWatcher.recheckInterval)
        _ = watcher.watch([], at: MonotonicClock.now())
        return changes.values
    }

    @Test func rtnetlinkTellsAWaitingTaskOfANewRoute() throws {
        _ = try Self.inFreshNetworkNamespace {
            let told = try Self.changesTold(waitingFor: .network, in: Self.sources) {
                try Self.ip("link add d0 type ifb")
                try Self.ip("link set d0 up")
                try Self.ip("route add default dev d0")
            }
            #expect(told == [[.network]], "no rtnetlink message within 3 s")
        }
    }

    /// Any uevent wakes a task waiting for `power` to re-read the supplies: here a link made in
    /// the namespace (its `add` uevent goes to that namespace's sockets only), while the
    /// stand-in supply directory changed unannounced.
    @Test func aUeventTellsAWaitingTaskToRereadThePowerSupplies() throws {
        let directory = TemporaryDirectory(prefix: "supervise-power")
        let supplies = directory.file("power_supply")
        @Sendable func write(_ text: String, _ name: String) throws {
            try FileManager.default.createDirectory(atPath: supplies + "/" + (name as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: supplies + "/" + name, atomically: false, encoding: .utf8)
        }
        try write("Battery\n", "BAT0/type")
        try write("Discharging\n", "BAT0/status")
        _ = try Self.inFreshNetworkNamespace {
            let told = try Self.changesTold(waitingFor: .power, in: ConditionSources(powerSupplies: supplies)) {
                try write("Full\n", "BAT0/status")
                try Self.ip("link add u0 type ifb")
            }
            #expect(told == [[.power]], "no uevent within 3 s")
        }
    }
}
