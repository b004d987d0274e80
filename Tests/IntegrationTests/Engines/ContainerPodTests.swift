import Foundation
import SuperviseTestSupport
import Testing

extension EngineSuites {
/// examples/kubernetes/pod.yaml's stop, played by a real Docker: supervise as the container's
/// pid 1 with the pod's own arguments, its preStop hook through `docker exec`, then the runtime's
/// SIGTERM, grace and SIGKILL (`docker stop -t terminationGracePeriodSeconds`), the report on a
/// mounted volume.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(10)))
struct ContainerPodTests {
    static let suite = "ContainerPodTests"

    /// The pod's container: its `args` (the report's `$(POD_NAME)` filled in), its preStop
    /// command, and `terminationGracePeriodSeconds`.
    struct Pod {
        var name: String
        var arguments: [String]
        var preStop: [String]
        var gracePeriod: Int

        init() throws {
            let pod = try DeployExampleTests.podObject()
            let spec = try #require(pod["spec"] as? [String: Any])
            let container = try #require((spec["containers"] as? [[String: Any]])?.first)
            let podName = try #require((pod["metadata"] as? [String: Any])?["name"] as? String)
            name = podName
            arguments = try #require(container["args"] as? [String]).map { $0.replacingOccurrences(of: "$(POD_NAME)", with: podName) }
            preStop = try #require((((container["lifecycle"] as? [String: Any])?["preStop"] as? [String: Any])?["exec"]
                                    as? [String: Any])?["command"] as? [String])
            gracePeriod = try #require(spec["terminationGracePeriodSeconds"] as? Int)
        }

        /// Where the pod writes its report, under the volume at /reports.
        var reportName: String { String(DeployExampleTests.value(of: "--report", in: arguments)?.dropFirst("/reports/".count) ?? "") }
    }

    /// Where the pod's `args` find the worker, and what is mounted there in the minbase root
    /// (an image built with the Dockerfile has it).
    static let worker = (source: Supervise.worker("aware-worker.sh"), destination: "/usr/local/bin/worker")

    /// How the pod's container starts on `cli` from `image`: the minbase root gets `worker` mounted.
    static func podStarter(on cli: EngineCLI, image: String = EngineContainer.baseImage) -> ContainerStart<EngineContainer> {
        EngineContainer.starter(on: cli, options: image != EngineContainer.baseImage ? [] : ["-v", worker.source + ":" + worker.destination + ":ro"], image: image)
    }

    /// The states supervise logged for the pod's worker, in order.
    static func states(in log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.hasPrefix("supervise: worker: ") }.map { $0.dropFirst("supervise: worker: ".count) }
    }

    @Test(.skip("container engines", because: EngineGate.skipReason(DeployExampleTests.yamlMissingReason), in: suite), arguments: Engine.allCases)
    func thePodsStopSuspendsInPreStopThenStopsCleanlyOnTheRuntimesStop(engine: Engine) throws {
        guard let cli = engine.started(in: Self.suite) else { return }
        try Self.playThePodsStop(start: Self.podStarter(on: cli))
    }

    /// The pod's container, started by `start` with the pod's `args`, stopped as the kubelet
    /// stops it (the runtime's stop: `docker stop -t`, runc's TERM then KILL), and what shows it
    /// went right.
    static func playThePodsStop<Container: SupervisedContainer>(start: ContainerStart<Container>) throws {
        let pod = try Pod()
        let container = try start(pod.arguments, ["WORKER_ON_BACKGROUND=task", "WORKER_TASK_SECONDS=1"])
        defer { container.remove() }
        #expect(eventually(timeout: 30) { (try? container.exec(["test", "-S", "/run/supervise.sock"]))?.status == 0 },
                "the control socket was never made: \(container.logs())")
        #expect(try container.exec(["cat", "/proc/1/cmdline"]).output.hasPrefix("/usr/local/bin/supervise\0"), "supervise is pid 1")

        let hook = try container.exec(pod.preStop)
        #expect(hook.status == 0, "the preStop hook: \(hook.output)")
        let stop = Date()
        try container.stop(grace: pod.gracePeriod)
        #expect(Date().timeIntervalSince(stop) < Double(pod.gracePeriod), "supervise exited on SIGTERM, before the runtime's SIGKILL")

        let status = container.exitStatus(timeout: 5)
        let log = container.logs()
        #expect(status == 0, "a clean stop: \(log)")
        let states = states(in: log)
        #expect(states.firstIndex(of: "suspended").map { $0 < (states.firstIndex(of: "terminating") ?? 0) } == true,
                "suspended by the hook, then terminated by SIGTERM: \(states)")
        let report = try container.report(pod.reportName)
        #expect(report["exit_status"] as? Int == 0)
        let child = try #require((report["children"] as? [[String: Any]])?.first)
        let exit = try #require(child["exit"] as? [String: Any], "\(child)")
        #expect(exit["by"] as? String == "terminate")
        #expect(exit["in_time"] as? Bool == true)
        #expect((child["tasks"] as? [[String: Any]])?.count == 1, "the worker's checkpoint in its window: \(child["tasks"] ?? "none")")
    }
}
}
