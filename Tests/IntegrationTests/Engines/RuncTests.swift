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

    /// Why the runc suite can't run here, or nil.
    static let skipReason = EngineGate.skipReason(RuncContainer.missingReason)

    @Test(.skip("runc", because: EngineGate.skipReason(RuncContainer.missingReason, DeployExampleTests.yamlMissingReason), in: suite))
    func thePodsStopAsARuntimePlaysItWithRunc() throws {
        try ContainerPodTests.playThePodsStop(start: RuncContainer.starter(binds: [ContainerPodTests.worker]))
    }

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
