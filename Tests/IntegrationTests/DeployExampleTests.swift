import Foundation
import Testing
import SuperviseTestSupport

/// `examples/systemd` and `examples/kubernetes` can't be run here as deployed (no systemd, no
/// cluster; the engine suites in Engines/ run the containers): their keys are checked, their `supervise` command lines are run for real
/// (with `true` as the worker), and the stop timeouts are held against the grace.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct DeployExampleTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    static let unit = ExampleTests.example("systemd/supervise-worker.service")
    static let pod = ExampleTests.example("kubernetes/pod.yaml")
    static let dockerfile = ExampleTests.example("kubernetes/Dockerfile")

    /// Why the pod's YAML can't be parsed here, or `nil` when python3 has PyYAML.
    static let yamlMissingReason: String? = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import yaml"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return "python3 could not be run" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? nil : "python3 has no PyYAML (apt-get install python3-yaml; scripts/setup-debian.sh)"
    }()

    /// Why `systemd-analyze verify` can't run here, or `nil` when it can.
    static let systemdAnalyzeMissingReason: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/systemd-analyze") }
            ? nil : "systemd-analyze is not installed (no systemd on this machine)"
    }()

    /// The unit's keys by section; a key given twice keeps its last value, as systemd reads it.
    static func unitKeys() throws -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:], section = ""
        for line in try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") || text.hasPrefix(";") { continue }
            if text.hasPrefix("[") && text.hasSuffix("]") {
                section = String(text.dropFirst().dropLast())
                continue
            }
            let pair = text.split(separator: "=", maxSplits: 1).map(String.init)
            try #require(pair.count == 2, "not KEY=VALUE: \(text)")
            sections[section, default: [:]][pair[0]] = pair[1]
        }
        return sections
    }

    /// Seconds in a duration written as systemd and supervise both read it here: `25s`, `10s`, `30`.
    static func seconds(_ text: String) -> Double? {
        Double(text.hasSuffix("s") ? String(text.dropLast()) : text)
    }

    /// The value after `option` in `arguments`.
    static func value(of option: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: option).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    /// Runs supervise with `arguments` up to `--` (the report moved to a temporary file) and `true`
    /// as the worker: the options the example gives are ones supervise takes.
    func runsWithTrue(_ arguments: [String]) throws -> SuperviseRun {
        var options = Array(arguments.prefix { $0 != "--" })
        if let index = options.firstIndex(of: "--report") { options.removeSubrange(index...index + 1) }
        if let index = options.firstIndex(of: "--socket") { options[index + 1] = temporary.file("ctl.sock") }
        return try Supervise.run(options + ["--", "true"])
    }

    @Test func theSystemdUnitIsANotifyServiceWithADelegatedCgroupAndItsStopFitsTheGrace() throws {
        let keys = try Self.unitKeys()
        let service = try #require(keys["Service"])
        #expect(service["Type"] == "notify")
        #expect(service["NotifyAccess"] == "main")
        #expect(service["Delegate"] == "yes")
        #expect(service["KillMode"] == "mixed")
        #expect(service["KillSignal"] == "SIGTERM")
        let command = try #require(service["ExecStart"]).split(separator: " ").map(String.init)
        #expect(command.first?.hasSuffix("/supervise") == true)
        #expect(Self.value(of: "--control", in: command) == "none", "a service has no stdin to read")
        let grace = try #require(Self.value(of: "--grace", in: command).flatMap(Self.seconds))
        let stopTimeout = try #require(service["TimeoutStopSec"].flatMap(Self.seconds))
        #expect(stopTimeout >= 2 * grace + 5, "TimeoutStopSec \(stopTimeout) s must cover twice the grace \(grace) s and 5 s")
        let run = try runsWithTrue(Array(command.dropFirst()))
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Verified with the built supervise and `sleep` in ExecStart: systemd checks that they exist.
    /// `systemd-analyze` works without systemd running (Debian's systemd package has it).
    @Test(.skip("systemd-analyze verify", because: systemdAnalyzeMissingReason, in: "DeployExampleTests"))
    func systemdAnalyzeVerifiesTheUnit() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/supervise", with: Supervise.binary)
            .replacingOccurrences(of: "/usr/local/bin/worker", with: "/bin/sleep 60")
        let copy = temporary.file("supervise-worker.service")
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        let verify = Process()
        verify.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        verify.arguments = ["systemd-analyze", "verify", copy]
        let output = CapturedOutput(of: verify)
        try verify.run()
        verify.waitUntilExit()
        output.expectEnd(of: "systemd-analyze verify", timeout: 5)
        #expect(verify.terminationStatus == 0, "\(output.stderr)")
        // A key it can't parse is only a warning ("…, ignoring"), naming the file.
        #expect(!(output.stdout + output.stderr).contains(copy), "\(output.stderr)")
    }

    /// The pod as JSON, from python3's PyYAML.
    static func podObject() throws -> [String: Any] {
        let convert = Process()
        convert.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        convert.arguments = ["python3", "-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))", pod]
        let output = CapturedOutput(of: convert)
        try convert.run()
        convert.waitUntilExit()
        output.expectEnd(of: "python3's YAML to JSON", timeout: 5)
        try #require(convert.terminationStatus == 0, "the YAML does not parse: \(output.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }

    /// The pod's stop, played here: its supervise options with an aware worker, its preStop hook
    /// (the socket moved to a temporary file), then the kubelet's SIGTERM.
    @Test(.skip("parsing the pod's YAML", because: yamlMissingReason, in: "DeployExampleTests"))
    func thePodsPreStopSuspendsTheWorkerThroughTheSocketBeforeSIGTERM() throws {
        let container = try #require(((try Self.podObject()["spec"] as? [String: Any])?["containers"] as? [[String: Any]])?.first)
        let arguments = try #require(container["args"] as? [String])
        let preStop = try #require((((container["lifecycle"] as? [String: Any])?["preStop"] as? [String: Any])?["exec"]
                                    as? [String: Any])?["command"] as? [String])
        let podSocket = try #require(Self.value(of: "--socket", in: arguments))
        let socket = temporary.file("prestop.sock")
        var options = Array(arguments.prefix { $0 != "--" })
        if let index = options.firstIndex(of: "--report") { options.removeSubrange(index...index + 1) }
        options[try #require(options.firstIndex(of: "--socket")) + 1] = socket
        let hook = try #require(preStop.last).replacingOccurrences(of: podSocket, with: socket)
            .replacingOccurrences(of: "supervise ctl", with: "\(Supervise.binary) ctl")
        var hookRun: (status: Int32, output: String)?
        let run = try Supervise.run(options + ["--", Supervise.worker("aware-worker.sh")]) { process in
            #expect(eventually { FileManager.default.fileExists(atPath: socket) }, "the socket was never made")
            hookRun = try runToEnd(Array(preStop.dropLast()) + [hook])
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(hookRun?.status == 0, "the hook: \(hookRun?.output ?? "never ran")")
        #expect(run.status == 0, "\(run.stderr)")
        let states = run.stderr.split(separator: "\n").filter { $0.hasPrefix("supervise: aware-worker.sh: ") }
            .map { $0.dropFirst("supervise: aware-worker.sh: ".count) }
        #expect(states.firstIndex(of: "suspended").map { $0 < (states.firstIndex(of: "terminating") ?? 0) } == true,
                "suspended by the hook, then terminated by SIGTERM: \(states)")
    }

    @Test(.skip("parsing the pod's YAML", because: yamlMissingReason, in: "DeployExampleTests"))
    func thePodsGraceFitsTerminationGracePeriodSecondsAndItsReportGoesToAClaim() throws {
        let pod = try Self.podObject()
        #expect(pod["kind"] as? String == "Pod")
        let spec = try #require(pod["spec"] as? [String: Any])
        let container = try #require((spec["containers"] as? [[String: Any]])?.first)
        let arguments = try #require(container["args"] as? [String])
        #expect(Self.value(of: "--control", in: arguments) == "none", "a container has no stdin to read")
        let grace = try #require(Self.value(of: "--grace", in: arguments).flatMap(Self.seconds))
        let window = try #require(Self.value(of: "--window", in: arguments).flatMap(Self.seconds))

        let lifecycle = try #require(container["lifecycle"] as? [String: Any])
        let preStop = try #require(((lifecycle["preStop"] as? [String: Any])?["exec"] as? [String: Any])?["command"] as? [String])
        let script = try #require(preStop.last)
        let socket = try #require(Self.value(of: "--socket", in: arguments))
        #expect(script.hasPrefix("supervise ctl --socket \(socket) background && supervise ctl --socket \(socket) wait suspended timeout="),
                "preStop backgrounds the worker through the control socket, then waits for it: \(preStop)")
        let preStopSleep = try #require(script.components(separatedBy: "timeout=").last.flatMap(Self.seconds))
        #expect(preStopSleep >= window, "preStop lets the worker use its window before SIGTERM comes")
        let period = try #require(spec["terminationGracePeriodSeconds"] as? Double)
        #expect(period >= preStopSleep + 2 * grace + 5,
                "terminationGracePeriodSeconds \(period) must cover preStop \(preStopSleep) s, twice the grace \(grace) s and 5 s")

        let report = try #require(Self.value(of: "--report", in: arguments))
        let mounts = try #require(container["volumeMounts"] as? [[String: Any]])
        let mount = try #require(mounts.first { report.hasPrefix(($0["mountPath"] as? String ?? "?") + "/") }, "the report is on no volume")
        let volume = try #require((spec["volumes"] as? [[String: Any]])?.first { $0["name"] as? String == mount["name"] as? String })
        #expect(volume["persistentVolumeClaim"] != nil, "the report outlives the pod: \(volume)")

        let run = try runsWithTrue(arguments)
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func theDockerfileBuildsInTwoStagesWithSuperviseAsTheEntrypoint() throws {
        let lines = try String(contentsOfFile: Self.dockerfile, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.filter { $0.hasPrefix("FROM ") }.count == 2)
        #expect(lines.contains { $0.hasPrefix("COPY --from=build /supervise ") })
        #expect(lines.contains("ENTRYPOINT [\"/usr/local/bin/supervise\"]"))
    }

    /// The system libraries the slim image has, as the Dockerfile says; any other the binary links
    /// must be installed by the image's last stage, by its Debian package's name. (The Swift
    /// runtime's, which a debug build links from the toolchain, a release build links in.)
    static let slimImageLibraries = ["libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux"]

    @Test func theImageInstallsEveryLibraryTheBinaryLinksBeyondTheSlimBase() throws {
        let text = try String(contentsOfFile: Self.dockerfile, encoding: .utf8)
        let lastStage = try #require(text.components(separatedBy: "\nFROM ").last)
        let linked = try runToEnd(["/usr/bin/ldd", Supervise.binary])
        #expect(linked.status == 0, "\(linked.output)")
        let paths = linked.output.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 3, fields[1] == "=>", fields[2].hasPrefix("/lib/") || fields[2].hasPrefix("/usr/lib/"),
                  !Self.slimImageLibraries.contains(where: { fields[0].hasPrefix($0) }) else { return nil }
            return String(fields[2])
        }
        #expect(!paths.isEmpty, "supervise links libcap beyond the slim base: \(linked.output)")
        for path in paths {
            let owner = try runToEnd(["/usr/bin/dpkg", "-S", path])
            let package = try #require(owner.output.split(separator: ":").first.map(String.init), "\(owner.output)")
            #expect(lastStage.contains("apt-get install -y --no-install-recommends \(package)"),
                    "\(path) is \(package)'s: the image's last stage must install it")
        }
    }
}
