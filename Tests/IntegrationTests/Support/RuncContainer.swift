import Foundation
import Synchronization
import SuperviseTestSupport

/// supervise as pid 1 of a container run by runc itself, no daemon: a bundle whose config is
/// `runc spec`'s, edited (supervise and its arguments as the process, no terminal, the minbase
/// root read-only, the mounts `EngineContainer` gives), a state directory of its own (`--root`),
/// and `runc run` in the foreground, whose exit status is the container's. `remove()` kills and
/// deletes the container and removes the bundle.
final class RuncContainer: SupervisedContainer, @unchecked Sendable {
    static let runcPath = "/usr/sbin/runc"

    static let missingReason: String? = FileManager.default.isExecutableFile(atPath: runcPath)
        ? nil : "runc is not installed (scripts/setup-debian.sh installs it)"

    /// The minbase root, unpacked once into the engine cache and shared read-only by every bundle.
    static let rootfs: Result<String, any Error> = Result {
        let path = DebianRoot.cache + "/runc-rootfs"
        if FileManager.default.fileExists(atPath: path + "/bin/sh") { return path }
        let unpacking = path + ".\(getpid())"
        try FileManager.default.createDirectory(atPath: unpacking, withIntermediateDirectories: true)
        try DebianRoot.unpack("minbase", into: unpacking)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: unpacking, toPath: path)
        return path
    }

    let id = "supervise-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let bundle = TemporaryDirectory(prefix: "supervise-runc")
    /// Mounted at /reports.
    let reports = TemporaryDirectory(prefix: "supervise-reports")
    private let process = Process()

    /// `runc --root STATE`.
    var cli: EngineCLI { EngineCLI(name: "runc", command: [Self.runcPath, "--root", bundle.file("state")], runOptions: []) }

    /// Starts `supervise ARGUMENTS` as the container's pid 1, with `environment` (`NAME=value`)
    /// and `binds` mounted read-only besides `EngineContainer`'s. With `cgroup2`, the container
    /// gets a private cgroup namespace and runc mounts its cgroup2 writable at
    /// /sys/fs/cgroup/unified, where this hybrid host has it.
    init(_ arguments: [String], environment: [String] = [], binds: [(source: String, destination: String)] = [], cgroup2: Bool = false) throws {
        try cli.checked(["spec", "--bundle", bundle.path])
        let configPath = bundle.file("config.json")
        guard var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configPath))) as? [String: Any],
              var process = config["process"] as? [String: Any], var mounts = config["mounts"] as? [[String: Any]],
              var linux = config["linux"] as? [String: Any], let namespaces = linux["namespaces"] as? [[String: Any]] else {
            throw SetupFailure("runc spec made no config with a process, mounts and namespaces")
        }
        process["args"] = ["/usr/local/bin/supervise"] + arguments
        process["terminal"] = false
        process["env"] = (process["env"] as? [String] ?? []) + environment
        config["process"] = process
        config["root"] = ["path": try Self.rootfs.get(), "readonly": true]
        mounts += (EngineContainer.binds(reports: reports, image: EngineContainer.baseImage) + binds.map { ($0.source, $0.destination, true) }).map {
            ["destination": $0.destination, "type": "bind", "source": $0.source, "options": ["rbind"] + ($0.readOnly ? ["ro"] : [])]
        }
        mounts += [["destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=755"]],
                   ["destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]]]
        if cgroup2 {
            linux["namespaces"] = namespaces + [["type": "cgroup"]]
            mounts.append(["destination": "/sys/fs/cgroup/unified", "type": "cgroup2", "source": "cgroup2", "options": ["nosuid", "noexec", "nodev", "rw"]])
        }
        config["linux"] = linux
        config["mounts"] = mounts
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))

        let output = try emptyFileForWriting(bundle.file("output"))
        self.process.executableURL = URL(fileURLWithPath: Self.runcPath)
        self.process.arguments = ["--root", bundle.file("state"), "run", "--bundle", bundle.path, id]
        self.process.standardInput = FileHandle.nullDevice
        self.process.standardOutput = output
        self.process.standardError = output
        try ContainerInit.withNoSignalBlocked { try self.process.run() }
    }

    /// How `RuncTests` starts the scenarios the engine suites play on Docker and Podman.
    static func starter(binds: [(source: String, destination: String)] = [], cgroup2: Bool = false) -> ContainerStart<RuncContainer> {
        { arguments, environment in try RuncContainer(arguments, environment: environment, binds: binds, cgroup2: cgroup2) }
    }

    /// What supervise and runc wrote.
    func logs() -> String { (try? String(contentsOfFile: bundle.file("output"), encoding: .utf8)) ?? "" }

    /// `runc exec ID COMMAND`.
    func exec(_ command: [String]) throws -> (status: Int32, output: String) { try cli.run(["exec", id] + command) }

    /// `runc kill ID SIGNAL`, as a runtime signals the container's pid 1.
    func kill(_ signal: String) throws { try cli.checked(["kill", id, signal]) }

    /// A runtime's stop played with runc: `runc kill ID TERM`, and `runc kill ID KILL` if the
    /// container still runs `grace` s later (the kernel then kills the rest of its pid namespace).
    func stop(grace: Int) throws {
        try kill("TERM")
        guard exitStatus(timeout: Double(grace)) == nil else { return }
        _ = try? cli.run(["kill", id, "KILL"])
        guard exitStatus(timeout: 10) != nil else { throw SetupFailure("\(id) outlived runc kill KILL: \(logs())") }
    }

    /// `runc pause ID`: the container's v1 freezer on this hybrid host.
    func pause() throws { try cli.checked(["pause", id]) }

    /// `runc resume ID`.
    func unpause() throws { try cli.checked(["resume", id]) }

    /// The container's pid 1 as the host sees it, once it runs.
    func hostPID() throws -> Int32 {
        var pid: Int32?
        let running = eventually(timeout: 30, interval: 0.1) {
            let state = (try? cli.run(["state", id]))?.output ?? ""
            let object = try? JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any]
            pid = (object?["status"] as? String == "running") ? (object?["pid"] as? Int).map(Int32.init) : nil
            return pid != nil
        }
        guard running, let pid else { throw SetupFailure("runc never ran \(id) within 30 s: \(logs())") }
        return pid
    }

    /// The container's exit status once `runc run` has returned, waiting at most `timeout` s.
    func exitStatus(timeout: Double) -> Int32? {
        eventually(timeout: timeout, interval: 0.05) { !process.isRunning } ? process.terminationStatus : nil
    }

    /// Kills what is left, deletes the container and removes the bundle and the reports.
    func remove() {
        if process.isRunning {
            _ = try? cli.run(["kill", "--all", id, "KILL"])
            if !eventually(timeout: 10, { !process.isRunning }) { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        _ = try? cli.run(["delete", "--force", id])
        bundle.remove()
        reports.remove()
    }
}
