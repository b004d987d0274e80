import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// What freezer supervise's `auto` gets in a real Docker container on this hybrid host, checked
/// from the host; and `docker pause` of the whole container while the worker holds a task. The
/// scenarios that runc alone can play too take how to start a container, for `RuncTests`.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(10)))
struct ContainerFreezerTests {
    static let suite = "ContainerFreezerTests"

    /// Why Docker's `--privileged` can't start a container here: runc gives a privileged
    /// container every capability, and this VM's bounding set lacks some (cap_sys_resource).
    static let privilegedRefusal: String? = {
        guard let bounding = ProcessInspector.keyedValue("/proc/self/status", "CapBnd:", separator: "\t")
            .flatMap({ UInt64($0.trimmingCharacters(in: .whitespaces), radix: 16) }) else { return nil }
        let sysResource: UInt64 = 1 << 24
        return bounding & sysResource == 0
            ? "Docker's --privileged is refused on this VM: its bounding set (CapBnd \(String(bounding, radix: 16))) lacks cap_sys_resource, which runc must give a privileged container"
            : nil
    }()

    /// `supervise --control none --name worker -- true` in a container `start` makes: the
    /// freezer `auto` took, from the report, and its log lines.
    static func auto<Container: SupervisedContainer>(start: ContainerStart<Container>) throws -> (freezer: String?, log: String) {
        let container = try start(["--control", "none", "--report", "/reports/report.json", "--name", "worker", "--", "true"], [])
        defer { container.remove() }
        let status = container.exitStatus(timeout: 30)
        let log = container.logs()
        #expect(status == 0, "\(log)")
        let child = try ContainerSignalTests.child(container.report("report.json"))
        return (child["freezer"] as? String, log)
    }

    /// A shell entrypoint that mounts cgroup2 of the container's own cgroup namespace at
    /// /sys/fs/cgroup/unified (where this host has it) and `exec`s supervise as pid 1.
    /// Its arguments: `/bin/sh -c SCRIPT sh SUPERVISE_ARGUMENTS…`.
    static let cgroup2Script = ["-c", "mkdir -p /sys/fs/cgroup/unified && mount -t cgroup2 none /sys/fs/cgroup/unified && exec /usr/local/bin/supervise \"$@\"", "sh"]
    static let cgroup2Options = ["--cgroupns", "private", "--cap-add", "SYS_ADMIN"]

    /// Containers on `cli` with a private cgroup namespace and cgroup2 mounted inside.
    static func cgroup2Starter(on cli: EngineCLI) -> ContainerStart<EngineContainer> {
        EngineContainer.starter(on: cli, options: cgroup2Options, entrypoint: "/bin/sh", prefix: cgroup2Script)
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func anUnprivilegedContainerGetsSigstop(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        let (freezer, log) = try Self.auto(start: EngineContainer.starter(on: cli))
        #expect(freezer == "sigstop", "\(log)")
        // Both engines on this hybrid host mount only the v1 hierarchies, read-only.
        #expect(log.contains("cgroup2 passed over") && log.contains("cgroup1 passed over: cgroup v1 freezer at /sys/fs/cgroup/freezer is not writable"), "\(log)")
    }

    /// Docker's `--privileged` asks runc for every capability and is refused here; Podman's
    /// keeps to the bounding set, starts, and makes the v1 hierarchies writable: cgroup1.
    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func privilegedGetsCgroup1OnPodmanAndIsRefusedByThisVMOnDocker(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        if engine == .docker, let refusal = Self.privilegedRefusal {
            try cli.importMinbase(as: EngineContainer.baseImage)
            let run = try cli.run(["run", "--rm", "--network", "none", "--privileged", EngineContainer.baseImage, "true"])
            #expect(run.status == 125 && run.output.contains("unable to apply caps"), "\(run.output)")
            SkipReason.check(refusal, skipping: "the freezer of a --privileged Docker container", in: Self.suite)
            return
        }
        let (freezer, log) = try Self.auto(start: EngineContainer.starter(on: cli, options: ["--privileged"]))
        #expect(freezer == "cgroup1", "\(log)")
        #expect(log.contains("cgroup1 at /sys/fs/cgroup/freezer: usable"), "\(log)")
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aPrivateCgroupNamespaceWithCgroup2MountedGetsCgroup2(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.aPrivateCgroupNamespaceWithCgroup2MountedGetsCgroup2(start: Self.cgroup2Starter(on: cli))
    }

    /// `start` makes containers with a private cgroup namespace and its cgroup2 mounted.
    static func aPrivateCgroupNamespaceWithCgroup2MountedGetsCgroup2<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let (freezer, log) = try auto(start: start)
        #expect(freezer == "cgroup2", "\(log)")
        #expect(log.contains("cgroup2 at /sys/fs/cgroup/unified: usable"), "\(log)")
    }

    /// The cgroup of `pid` in the host's `hierarchy` line of /proc/PID/cgroup (`""` for v2,
    /// `freezer` for v1's), as a host path under `mount`.
    static func hostCgroup(of pid: Int32, hierarchy: String, under mount: String) throws -> String {
        let lines = (ProcessInspector.read("/proc/\(pid)/cgroup") ?? "").split(separator: "\n")
        let line = try #require(lines.first { $0.split(separator: ":", omittingEmptySubsequences: false).dropFirst().first == Substring(hierarchy) })
        return mount + line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)[2]
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func cgroup2FreezesTheWorkerInsideTheContainerAsTheHostSees(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.cgroup2FreezesTheWorkerInsideTheContainerAsTheHostSees(start: Self.cgroup2Starter(on: cli))
    }

    /// `start` makes containers with a private cgroup namespace and its cgroup2 mounted: USR1
    /// freezes the worker's cgroup (seen in the host's `cgroup.events`), USR2 thaws it, and
    /// supervise's cgroup is gone after the stop.
    static func cgroup2FreezesTheWorkerInsideTheContainerAsTheHostSees<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(["--control", "none", "--socket", "/run/supervise.sock", "--freezer", "cgroup2",
                                   "--name", "worker", "--", "/workers/aware-worker.sh"], [])
        defer { container.remove() }
        #expect(ContainerSignalTests.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let worker = try ContainerSignalTests.hostWorker(container)
        let cgroup = try hostCgroup(of: worker, hierarchy: "", under: ContainerCgroups.v2Mount)
        #expect(cgroup.contains("/supervise-"), "the worker is in supervise's own cgroup: \(cgroup)")
        let probe = FreezeProbe(backend: .cgroup2, cgroup: cgroup)
        try container.kill("USR1")
        #expect(ContainerSignalTests.ctl(container, "wait suspended timeout=10s").status == 0, "\(container.logs())")
        #expect(probe.unfrozen(ProcessInspector.tree(of: worker)) == [])
        #expect(!ProcessInspector.isStopped(worker), "cgroup2 freezes without SIGSTOP")
        try container.kill("USR2")
        #expect(ContainerSignalTests.ctl(container, "wait active timeout=10s").status == 0, "\(container.logs())")
        #expect(probe.stillFrozen(ProcessInspector.tree(of: worker)) == [])
        try container.stop(grace: 10)
        #expect(container.exitStatus(timeout: 5) == 0, "\(container.logs())")
        #expect(eventually { !FileManager.default.fileExists(atPath: cgroup) }, "supervise removed its cgroup: \(cgroup)")
    }

    @Test(.skip("container engines", because: EngineGate.skipReason, in: suite), arguments: Engine.allCases)
    func aPausedContainersTaskGetsExpireAFullWarningBeforeTheKill(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.aPausedContainersTaskGetsExpireAFullWarningBeforeTheKill(start: EngineContainer.starter(on: cli))
    }

    /// The runtime's pause freezes supervise with its worker (the v1 freezer of the container,
    /// seen from the host) past the limit while a task is open: once unpaused, the worker, which
    /// never ends it, still gets `expire` the full expiry warning before the kill.
    static func aPausedContainersTaskGetsExpireAFullWarningBeforeTheKill<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let container = try start(ContainerSignalTests.arguments(["--window", "1", "--limit", "2", "--expiry-warning", "1", "--grace", "2s"]),
                                  ["WORKER_ON_BACKGROUND=hold", "WORKER_LOG=/reports/events.log"])
        defer {
            try? container.unpause()
            container.remove()
        }
        #expect(ContainerSignalTests.ctl(container, "wait active timeout=30s").status == 0, "\(container.logs())")
        let freezer = try hostCgroup(of: try container.hostPID(), hierarchy: "freezer", under: try #require(ContainerCgroups.v1FreezerMount))
        try container.kill("USR1")
        let events = container.reports.file("events.log")
        try #require(eventually(timeout: 10) { ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").contains("did-enter-background") },
                     "the worker never got did-enter-background: \(container.logs())")
        Thread.sleep(forTimeInterval: 0.3)
        try container.pause()
        #expect(ProcessInspector.read(freezer + "/freezer.state")?.hasPrefix("FROZEN") == true, "the host sees the container frozen")
        Thread.sleep(forTimeInterval: 3)
        try container.unpause()
        #expect(container.exitStatus(timeout: 20) == 124, "\(container.logs())")
        let report = try container.report("report.json")
        let child = try ContainerSignalTests.child(report)
        let expired = try #require((child["tasks"] as? [[String: Any]])?.first?["expire_ms"] as? Double, "\(child)")
        let violation = try #require((child["violations"] as? [[String: Any]])?.first, "\(child)")
        #expect(violation["kind"] as? String == "expiry")
        let killed = try #require(violation["at_ms"] as? Double)
        #expect(killed - expired >= 999.999, "expire at \(expired) ms, killed at \(killed) ms")
        #expect((report["supervisor_gaps"] as? [Any])?.count == 1, "the pause is one gap: \(report["supervisor_gaps"] ?? "none")")
    }
}
}
