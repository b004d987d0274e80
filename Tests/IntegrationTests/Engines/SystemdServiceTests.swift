import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// examples/systemd/supervise-worker.service, installed as shipped, under a real systemd as pid 1
/// (`systemd-nspawn -b` on a Debian bookworm root, systemd 252): what docs/deploy.md, "systemd",
/// says the unit does (issue 26). Variations are drop-ins; the shipped file is bound in unchanged.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct SystemdServiceTests {
    static let suite = "SystemdServiceTests"
    static let skipReason = EngineGate.skipReason(SystemdMachine.unavailableReason)
    static let sleeper = "exec sleep 1000"
    /// The unit's cgroup inside the machine, and where supervise makes its own.
    static let unitCgroup = "/sys/fs/cgroup/system.slice/supervise-worker.service"

    /// The unit's cgroup as the host sees it.
    func hostUnitCgroup(_ machine: SystemdMachine) -> String {
        machine.cgroup + "/payload/system.slice/supervise-worker.service"
    }

    /// The `frozen` line of the worker's own cgroup (`supervise-PID-TOKEN/worker.1`), from the host.
    func workerFrozen(_ machine: SystemdMachine) -> String? {
        let unit = hostUnitCgroup(machine)
        let own = (try? FileManager.default.contentsOfDirectory(atPath: unit))?.first { $0.hasPrefix("supervise-") }
        let events = own.flatMap { try? String(contentsOfFile: "\(unit)/\($0)/worker.1/cgroup.events", encoding: .utf8) }
        return events?.split(separator: "\n").first { $0.hasPrefix("frozen ") }.map(String.init)
    }

    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func startReturnsOnceReadyAndStatusShowsTheWorkersState() throws {
        let machine = try SystemdMachine(worker: Self.sleeper)
        defer { machine.shutDown() }
        let start = try machine.systemctl("start")
        #expect(start.status == 0, "\(start.output)")
        // Type=notify: start returns only once systemd had READY=1, so the unit is no longer activating.
        #expect(try machine.property("ActiveState") == "active")
        #expect(try machine.property("StatusText") == "worker: active")
        let status = try machine.systemctl("status")
        #expect(status.output.contains("Status: \"worker: active\""), "\(status.output)")
        let journal = machine.journal()
        #expect(journal.contains("cgroup2 at \(Self.unitCgroup): usable; children's cgroups go in \(Self.unitCgroup)/supervise-"),
                "Delegate=yes: the subtree is supervise's: \(journal)")
        // systemd 252 marks the delegated cgroup, which is what supervise reads.
        let mark = try runToEnd(["/usr/bin/python3", "-c", "import os, sys; print(os.getxattr(sys.argv[1], 'trusted.delegate').decode())",
                                 hostUnitCgroup(machine)])
        #expect(mark.status == 0 && mark.output == "1\n", "\(mark.output)")
    }

    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func usr1AndUsr2ToTheMainProcessBackgroundAndForegroundTheWorker() throws {
        let machine = try SystemdMachine(worker: Self.sleeper)
        defer { machine.shutDown() }
        try #require(try machine.systemctl("start").status == 0)
        #expect(try machine.systemctl("kill", "-s", "USR1", "--kill-whom=main").status == 0)
        #expect(machine.waitFor("StatusText", "worker: suspended"), "after the 5 s window: \(machine.journal())")
        #expect(workerFrozen(machine) == "frozen 1", "the worker's cgroup v2 is frozen")
        #expect(try machine.systemctl("kill", "-s", "USR2", "--kill-whom=main").status == 0)
        #expect(machine.waitFor("StatusText", "worker: active"), "\(machine.journal())")
        #expect(workerFrozen(machine) == "frozen 0")
    }

    /// A worker that ignores SIGTERM and a TimeoutStopSec shorter than the grace: supervise's
    /// EXTEND_TIMEOUT_USEC keeps systemd from SIGKILLing it before its own ladder ends.
    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func stopOutlastsAShortTimeoutStopSecThroughExtendTimeout() throws {
        let machine = try SystemdMachine(worker: "trap '' TERM; exec sleep 1000", dropIns: ["stop.conf": "[Service]\nTimeoutStopSec=2s\n"])
        defer { machine.shutDown() }
        try #require(try machine.systemctl("start").status == 0)
        let began = Date()
        let stop = try machine.systemctl("stop")
        let took = Date().timeIntervalSince(began)
        let journal = machine.journal()
        #expect(stop.status == 0, "\(stop.output)")
        #expect(took >= 9 && took < 25, "the 10 s grace, not TimeoutStopSec's 2 s: took \(took) s: \(journal)")
        #expect(journal.contains("worker: killed by SIGKILL"), "supervise's own SIGKILL at the end of the grace: \(journal)")
        #expect(!journal.contains("timed out"), "systemd never had to kill: \(journal)")
        // The worker did not stop within the grace: supervise exits with its status, 137, and the
        // unit is left failed, which is what a worker that ignores SIGTERM deserves.
        #expect(try machine.property("ExecMainStatus") == "137", "\(journal)")
        #expect(try machine.property("ActiveState") == "failed")
    }

    /// Frozen through the worker's 5 s window and thawed after it: supervise sees its timer fire
    /// late, says so, and moves the window rather than judge the worker by the freeze
    /// (docs/deploy.md, "A paused container or a frozen unit").
    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func freezeAndThawOfTheUnitFreezeSuperviseWithItsWorker() throws {
        let machine = try SystemdMachine(worker: Self.sleeper)
        defer { machine.shutDown() }
        try #require(try machine.systemctl("start").status == 0)
        #expect(try machine.systemctl("kill", "-s", "USR1", "--kill-whom=main").status == 0)
        #expect(try machine.systemctl("freeze").status == 0)
        #expect(try machine.property("FreezerState") == "frozen")
        let events = try String(contentsOfFile: hostUnitCgroup(machine) + "/cgroup.events", encoding: .utf8)
        #expect(events.contains("frozen 1"), "\(events)")
        Thread.sleep(forTimeInterval: 6)
        #expect(try machine.systemctl("thaw").status == 0)
        #expect(try machine.property("FreezerState") == "running")
        #expect(machine.waitFor("StatusText", "worker: suspended"), "supervise works on after the thaw: \(machine.journal())")
        #expect(machine.journal().contains("the supervisor was not running for up to"), "\(machine.journal())")
    }

    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func aFailedWorkerIsRestartedOnFailure() throws {
        let machine = try SystemdMachine(worker: "sleep 1; exit 3")
        defer { machine.shutDown() }
        try #require(try machine.systemctl("start").status == 0)
        #expect(eventually(timeout: 20, interval: 0.2) { (Int((try? machine.property("NRestarts")) ?? "") ?? 0) >= 1 },
                "Restart=on-failure after the worker's exit 3: \(machine.journal())")
        #expect(machine.journal().contains("status=3"), "supervise passed the worker's status on")
    }

    /// Defect 1: without Delegate=yes the service's cgroup is systemd's; auto passes cgroup2 over,
    /// and `--freezer cgroup2` fails with 125, which RestartPreventExitStatus keeps from restarting.
    @Test(.skip("systemd as pid 1", because: skipReason, in: suite))
    func withoutDelegateCgroup2IsPassedOverAnd125IsNotRestarted() throws {
        let machine = try SystemdMachine(worker: Self.sleeper, dropIns: ["delegate.conf": "[Service]\nDelegate=no\n"])
        defer { machine.shutDown() }
        try #require(try machine.systemctl("start").status == 0)
        let journal = machine.journal()
        #expect(journal.contains("cgroup2 passed over: cgroup v2 at \(Self.unitCgroup) is a systemd service's cgroup that was not "
                                 + "delegated to it (no Delegate=yes): systemd owns it, and may move or kill what is made in it; "
                                 + "add Delegate=yes to the unit's [Service] section"), "\(journal)")
        #expect(journal.contains("worker: started pid") && journal.contains("(sigstop)"), "\(journal)")
        let made = try FileManager.default.contentsOfDirectory(atPath: hostUnitCgroup(machine)).filter { $0.hasPrefix("supervise-") }
        #expect(made.isEmpty, "nothing made in systemd's cgroup: \(made)")
        try #require(try machine.systemctl("stop").status == 0)

        // Without $INVOCATION_ID too (as after sudo): the cgroup's own marks say whose it is.
        try machine.addDropIn("cgroup2.conf", "[Service]\nExecStart=\nExecStart=/usr/bin/env -u INVOCATION_ID /usr/local/bin/supervise "
                              + "--control none --freezer cgroup2 --grace 10s -- /usr/local/bin/worker\n")
        #expect(try machine.systemctl("start").status != 0)
        #expect(machine.waitFor("ExecMainStatus", "125"), "\(machine.journal())")
        Thread.sleep(forTimeInterval: 1)
        #expect(try machine.property("NRestarts") == "0", "RestartPreventExitStatus=125: \(machine.journal())")
        #expect(machine.journal().contains("--freezer cgroup2 can't be used here: cgroup v2 at \(Self.unitCgroup) is a systemd service's"))
    }
}
}
