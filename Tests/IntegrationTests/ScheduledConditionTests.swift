import Foundation
import Testing
import SuperviseTestSupport

/// A scheduled task that requires a condition waits for it on the real machine's reading: here
/// `power`, read from a stand-in supply directory (`--power-supplies`) that the test plugs in. The
/// kernel's view is checked at each step, on every freezer.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct ScheduledConditionTests {
    let temporary = TemporaryDirectory()
    var log: String { temporary.file("events.log") }

    func events() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func supply(_ status: String) throws {
        let battery = temporary.file("power_supply/BAT0")
        try FileManager.default.createDirectory(atPath: battery, withIntermediateDirectories: true)
        try "Battery\n".write(toFile: battery + "/type", atomically: false, encoding: .utf8)
        try "\(status)\n".write(toFile: battery + "/status", atomically: false, encoding: .utf8)
    }

    @Test(arguments: Backend.usable(in: "ScheduledConditionTests"))
    func aParkedWorkerIsThawedForATaskThatRequiresPowerOnlyOncePluggedIn(backend: Backend) throws {
        try supply("Discharging")
        var frozenBefore = false, readUnplugged = true, thawedUnplugged = true, thawedPlugged = false, frozenAfter = false
        let run = try Supervise.run(
            ["--aware", "--freezer", backend.rawValue, "--freeze-timeout", "5", "--window", "0.5",
             "--power-supplies", temporary.file("power_supply"), "--name", "worker", "--", Supervise.worker("aware-worker.sh")],
            stdin: "wait active timeout=20s\nbackground\nwait suspended timeout=10s\n",
            environment: ["WORKER_LOG": log, "WORKER_REQUESTS": "schedule t refresh requires=power",
                          // Long enough for the kernel to be seen thawed while the worker runs it.
                          "WORKER_TASK_SECONDS": "1"]) { process in
                let child = SupervisedChild(backend: backend, supervisorPID: process.processIdentifier)
                // Due at once, but on battery: the worker is parked and stays frozen.
                frozenBefore = child.waitFrozen()
                thawedUnplugged = frozenBefore && eventually(timeout: 1.5) { !child.isFrozen }
                readUnplugged = events().contains { $0.hasPrefix("task ") }
                try supply("Charging")
                // A stand-in directory changes unannounced: the next 5 s re-read finds it plugged in.
                thawedPlugged = !thawedUnplugged && child.waitThawed(timeout: 8)
                frozenAfter = thawedPlugged && child.waitFrozen()
                kill(process.processIdentifier, SIGTERM)
            }
        #expect(frozenBefore, "the kernel never showed the parked worker frozen: \(events())")
        #expect(!thawedUnplugged, "the worker was thawed on battery: \(events())")
        #expect(!readUnplugged, "the worker read its task on battery: \(events())")
        #expect(thawedPlugged, "the kernel never showed the worker thawed once plugged in: \(events())")
        #expect(frozenAfter, "the kernel never showed the worker frozen again after its task")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(events().filter { $0.hasPrefix("task ") } == ["task t refresh 30000"], "the task ran once: \(events())")
        let records = run.child["scheduled_tasks"] as? [[String: Any]] ?? []
        #expect(records.count == 1 && records.first?["outcome"] as? String == "success", "\(records)")
    }

    /// What `supervise ctl status` answers on `socket`.
    static func status(_ socket: String) -> String {
        (try? Ctl.run(socket, ["status"])).map { $0.stdout + $0.stderr } ?? "ctl failed"
    }

    /// A parked worker whose task requiring every condition is not due for an hour costs
    /// nothing meanwhile: no condition is watched or re-read before a task is due
    /// (docs/conditions.md), so the supervisor sleeps in epoll_wait and is never woken.
    @Test(arguments: Backend.usable(in: "ScheduledConditionTests"))
    func aTaskNotYetDueWakesNothing(backend: Backend) throws {
        let socket = temporary.file("s")
        var parked = false, frozen = false, before: [String: Int] = [:], after: [String: Int] = [:], last = ""
        let run = try Supervise.run(
            ["--aware", "--control", "none", "--freezer", backend.rawValue, "--window", "0", "--socket", socket,
             "--name", "worker", "--", Supervise.worker("aware-worker.sh")],
            environment: ["WORKER_LOG": log, "WORKER_REQUESTS": "schedule t refresh earliest=1h requires=idle,power,network"]) { process in
                let pid = process.processIdentifier
                // Its task pending before it is sent to the background (a freeze between its
                // `hello` and its `schedule` would hold the request back), then parked.
                let pending = eventually(timeout: 20) {
                    last = Self.status(socket)
                    return last.contains("\"scheduled\":[\"t\"]")
                }
                let sent = pending && (try? Ctl.run(socket, ["background"]))?.status == 0
                parked = sent && eventually(timeout: 20) {
                    last = Self.status(socket)
                    return last.contains("\"state\":\"suspended\"")
                }
                frozen = parked && SupervisedChild(backend: backend, supervisorPID: pid).waitFrozen()
                // Idle: blocked in epoll_wait (232) or epoll_pwait (281), the last ctl answered.
                #expect(eventually(timeout: 10) {
                    let blockedIn = ProcessInspector.read("/proc/\(pid)/syscall") ?? ""
                    return blockedIn.hasPrefix("232 ") || blockedIn.hasPrefix("281 ")
                }, "the supervisor never waited in epoll")
                before = FreezerTests.contextSwitches(pid)
                // The point: longer than the 5 s re-read of a waited condition, in which an idle
                // supervisor must not be woken.
                Thread.sleep(forTimeInterval: 5.5)
                after = FreezerTests.contextSwitches(pid)
                kill(pid, SIGTERM)
            }
        #expect(parked, "status never showed the worker's task t pending, then it suspended: \(last), \(events())")
        #expect(frozen, "the kernel never showed the parked worker frozen: \(events())")
        #expect(!before.isEmpty && before == after, "context switches in 5.5 s while a task is not yet due: \(before) -> \(after)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!events().contains { $0.hasPrefix("task ") }, "the task ran before it was due: \(events())")
    }
}
