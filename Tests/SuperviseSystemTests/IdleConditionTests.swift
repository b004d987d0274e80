import Foundation
import Glibc
import SuperviseLifecycle
import SuperviseProtocol
import SuperviseSystem
import SuperviseTestSupport
import Testing

/// The `idle` condition for real, on the CPU pressure of a cgroup v2 of the test's own, which
/// stands in for `/proc/pressure/cpu`: busy processes put in it make its pressure trigger fire.
@Suite(.serialized) struct IdleConditionTests {
    static let root = "/sys/fs/cgroup/unified"

    @Test func aPressureTriggerTellsATaskWaitingForIdleThatTheMachineTurnedBusy() throws {
        let cgroup = "\(Self.root)/supervise-conditions-test-\(getpid())"
        guard getuid() == 0, access("\(Self.root)/cgroup.procs", W_OK) == 0, mkdir(cgroup, 0o755) == 0 else {
            print("skipped: IdleConditionTests: no cgroup v2 to make a cgroup in at \(Self.root) (needs root)")
            return
        }
        defer { rmdir(cgroup) }
        guard access("\(cgroup)/cpu.pressure", R_OK) == 0 else {
            print("skipped: IdleConditionTests: \(cgroup)/cpu.pressure is missing: this kernel has no PSI")
            return
        }
        let loop = try EventLoop()
        let watcher = ConditionWatcher(conditions: MachineConditions(sources: ConditionSources(cpuPressure: "\(cgroup)/cpu.pressure")))
        let changes = Recorded()
        watcher.attach(to: loop) { [unowned watcher] in changes.values.append(watcher.held) }
        let start = MonotonicClock.now()
        #expect(watcher.watch([.idle], at: start) == start)
        watcher.look(at: start)
        #expect(watcher.held == [.idle], "an empty cgroup stalls on nothing")

        // More busy loops than the machine has CPUs, so one always waits for one.
        let cpus = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var busy: [Int32] = []
        defer {
            for pid in busy { kill(pid, SIGKILL) }
            for pid in busy { waitpid(pid, nil, 0) }
        }
        for _ in 0...cpus {
            let pid = try spawn(["/usr/bin/nice", "-n", "19", "/bin/sh", "-c", "while :; do :; done"])
            busy.append(pid)
            try "\(pid)".write(toFile: "\(cgroup)/cgroup.procs", atomically: false, encoding: .utf8)
        }
        // No look is made: only the trigger can wake the loop. It fires once per 2 s window
        // while the stall lasts; `avg10` passes 10 % after the kernel's first 2 s update.
        let deadline = start + .seconds(10)
        while changes.values.isEmpty, MonotonicClock.now() < deadline { loop.wait(until: deadline) }
        #expect(changes.values == [[]], "the trigger did not tell of the busy cgroup within 10 s")
        _ = watcher.watch([], at: MonotonicClock.now())
    }
}
