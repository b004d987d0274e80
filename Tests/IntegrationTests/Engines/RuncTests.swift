import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// supervise as pid 1 of a container run by runc alone (what Docker, Podman and the kubelet's
/// runtimes drive underneath): the pod's stop as a runtime plays it with `runc exec` and
/// `runc kill`, the signals users send, and the freezer `auto` gets in runc's default container.
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
        #expect(try container.exec(["cat", "/proc/1/cmdline"]).output.hasPrefix("/usr/local/bin/supervise\0"), "supervise is pid 1: \(container.logs)")
        #expect(eventually(timeout: 30) { (try? container.exec(["test", "-S", "/run/supervise.sock"]))?.status == 0 },
                "the control socket was never made: \(container.logs)")
        let hook = try container.exec(pod.preStop)
        #expect(hook.status == 0, "the preStop hook: \(hook.output)")
        try container.kill("TERM")
        var status = container.exitStatus(timeout: Double(pod.gracePeriod))
        if status == nil {
            Issue.record("supervise outlived terminationGracePeriodSeconds: \(container.logs)")
            _ = try? container.cli.run(["kill", "--all", container.id, "KILL"])
            status = container.exitStatus(timeout: 10)
        }
        #expect(status == 0, "\(container.logs)")
        let states = ContainerPodTests.states(in: container.logs.replacingOccurrences(of: "supervise: aware-worker.sh: ", with: "supervise: worker: "))
        #expect(states.firstIndex(of: "suspended").map { $0 < (states.firstIndex(of: "terminating") ?? 0) } == true,
                "suspended by the hook, then terminated by SIGTERM: \(states)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: container.reports.file(pod.reportName)))) as? [String: Any]
        #expect(report?["exit_status"] as? Int == 0)
        let exit = (report?["children"] as? [[String: Any]])?.first?["exit"] as? [String: Any]
        #expect(exit?["by"] as? String == "terminate" && exit?["in_time"] as? Bool == true, "\(exit ?? [:])")
    }

    @Test(.skip("runc", because: EngineGate.skipReason(RuncContainer.missingReason), in: suite))
    func runcKillUSR1AndUSR2MoveTheWorkerAndKillTERMStopsIt() throws {
        let container = try RuncContainer(["--control", "none", "--socket", "/run/supervise.sock", "--report", "/reports/report.json",
                                           "--name", "worker", "--grace", "2s", "--", "/workers/aware-worker.sh"])
        defer { container.remove() }
        let ctl = { (command: String) in
            (try? container.exec(["supervise", "ctl", "--socket", "/run/supervise.sock"] + command.split(separator: " ").map(String.init)))?.status
        }
        #expect(eventually(timeout: 30) { ctl("wait active timeout=1s") == 0 }, "\(container.logs)")
        let supervisor = try container.hostPID()
        let worker = try #require(ProcessInspector.liveChildren(of: supervisor).first, "pid 1 has no child: \(container.logs)")
        try container.kill("USR1")
        #expect(ctl("wait suspended timeout=10s") == 0, "\(container.logs)")
        #expect(FreezeProbe(backend: .sigstop).unfrozen(ProcessInspector.tree(of: worker)) == [], "the host sees the worker stopped")
        try container.kill("USR2")
        #expect(ctl("wait active timeout=10s") == 0, "\(container.logs)")
        try container.kill("TERM")
        #expect(container.exitStatus(timeout: 20) == 0, "\(container.logs)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: container.reports.file("report.json")))) as? [String: Any]
        let child = (report?["children"] as? [[String: Any]])?.first
        // runc's default spec mounts no cgroup tree at all: auto takes sigstop.
        #expect(child?["freezer"] as? String == "sigstop", "\(container.logs)")
        #expect((child?["exit"] as? [String: Any])?["by"] as? String == "terminate")
    }
}
}
