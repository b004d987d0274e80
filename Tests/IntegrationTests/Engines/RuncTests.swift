import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// supervise as pid 1 of a container run by runc alone (what Docker, Podman and the kubelet's
/// runtimes drive underneath): the pod's stop as a runtime plays it with `runc exec` and
/// `runc kill`; the signal scenarios of `ContainerSignalTests` (`runc kill` for `kill -s`, `runc
/// exec` for `exec`, TERM then KILL for `stop -t`); `runc pause`/`resume` with a task open; and the
/// freezer `auto` gets in runc's default container and with a private cgroup namespace and cgroup2.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(10)))
struct RuncTests {
    static let suite = "RuncTests"

    @Test(.skip("runc", because: EngineGate.skipReason(RuncContainer.missingReason, DeployExampleTests.yamlMissingReason), in: suite))
    func thePodsStopAsARuntimePlaysItWithRunc() throws {
        let pod = try ContainerPodTests.Pod()
        let container = try RuncContainer(pod.arguments.dropLast() + ["/workers/aware-worker.sh"],
                                          environment: ["WORKER_ON_BACKGROUND=task", "WORKER_TASK_SECONDS=1"])
        defer { container.remove() }
        _ = try container.hostPID()
        #expect(try container.exec(["cat", "/proc/1/cmdline"]).output.hasPrefix("/usr/local/bin/supervise\0"), "supervise is pid 1: \(container.logs())")
        #expect(eventually(timeout: 30) { (try? container.exec(["test", "-S", "/run/supervise.sock"]))?.status == 0 },
                "the control socket was never made: \(container.logs())")
        let hook = try container.exec(pod.preStop)
        #expect(hook.status == 0, "the preStop hook: \(hook.output)")
        try container.kill("TERM")
        var status = container.exitStatus(timeout: Double(pod.gracePeriod))
        if status == nil {
            Issue.record("supervise outlived terminationGracePeriodSeconds: \(container.logs())")
            _ = try? container.cli.run(["kill", "--all", container.id, "KILL"])
            status = container.exitStatus(timeout: 10)
        }
        #expect(status == 0, "\(container.logs())")
        let states = ContainerPodTests.states(in: container.logs().replacingOccurrences(of: "supervise: aware-worker.sh: ", with: "supervise: worker: "))
        #expect(states.firstIndex(of: "suspended").map { $0 < (states.firstIndex(of: "terminating") ?? 0) } == true,
                "suspended by the hook, then terminated by SIGTERM: \(states)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: container.reports.file(pod.reportName)))) as? [String: Any]
        #expect(report?["exit_status"] as? Int == 0)
        let exit = (report?["children"] as? [[String: Any]])?.first?["exit"] as? [String: Any]
        #expect(exit?["by"] as? String == "terminate" && exit?["in_time"] as? Bool == true, "\(exit ?? [:])")
    }

    /// Why the runc suite can't run here, or nil.
    static let skipReason = EngineGate.skipReason(RuncContainer.missingReason)

    @Test(.skip("runc", because: skipReason, in: suite))
    func runcKillUSR1BackgroundsAndUSR2ForegroundsTheWorker() throws {
        // runc's default spec mounts the v1 hierarchies read-only and no cgroup2: auto takes sigstop.
        try ContainerSignalTests.signalUSR1BackgroundsAndUSR2ForegroundsTheWorker(start: RuncContainer.starter())
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func killTERMOfPidOneThroughRuncExecStopsCleanly() throws {
        try ContainerSignalTests.killTERMOfPidOneThroughExecStopsCleanly(start: RuncContainer.starter())
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes() throws {
        try ContainerSignalTests.aWorkerThatIgnoresSIGTERMIsKilledAtSupervisesGraceWithinTheRuntimes(start: RuncContainer.starter())
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func aRuntimeGraceShorterThanSupervisesLosesTheReport() throws {
        try ContainerSignalTests.aRuntimeGraceShorterThanSupervisesLosesTheReport(start: RuncContainer.starter())
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func runcPauseOfTheContainersTaskGetsExpireAFullWarningBeforeTheKill() throws {
        try ContainerFreezerTests.aPausedContainersTaskGetsExpireAFullWarningBeforeTheKill(start: RuncContainer.starter())
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func aPrivateCgroupNamespaceWithCgroup2MountedGetsCgroup2() throws {
        try ContainerFreezerTests.aPrivateCgroupNamespaceWithCgroup2MountedGetsCgroup2(start: RuncContainer.starter(cgroup2: true))
    }

    @Test(.skip("runc", because: skipReason, in: suite))
    func cgroup2FreezesTheWorkerInsideTheContainerAsTheHostSees() throws {
        try ContainerFreezerTests.cgroup2FreezesTheWorkerInsideTheContainerAsTheHostSees(start: RuncContainer.starter(cgroup2: true))
    }
}
}
