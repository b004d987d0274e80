import Foundation
import Synchronization
import SuperviseTestSupport

/// A Docker daemon of this test run's own, started on first use and stopped when the test
/// process exits. Its images live in `--data-root` under the engine cache (`.build/engines/docker`),
/// so a second run finds them; its exec root, pid file and socket are in a private directory, and
/// it makes no bridge and no iptables chain (`--bridge=none --iptables=false`): containers run with
/// `--network none`. Two test runs with different caches can each run one at once.
final class Dockerd: @unchecked Sendable {
    static let dockerdPath = "/usr/sbin/dockerd"
    /// Debian's client, of the daemon's version (another `docker` may come first in PATH).
    static let dockerPath = "/usr/bin/docker"

    /// Why no daemon can be started here, checked without starting one.
    static let missingReason: String? = [dockerdPath, dockerPath, "/usr/bin/containerd", "/usr/sbin/runc"]
        .first { !FileManager.default.isExecutableFile(atPath: $0) }
        .map { "\($0) is not installed (docker.io; scripts/setup-debian.sh installs it)" }

    /// The run's daemon, started the first time it is asked for (seconds), or why it could not start.
    static let shared: Result<Dockerd, any Error> = Result { try Dockerd() }

    private let privateDirectory = TemporaryDirectory(prefix: "supervise-dockerd")
    var directory: String { privateDirectory.path }
    var socket: String { directory + "/docker.sock" }
    let dataRoot = DebianRoot.cache + "/docker"
    private let process: Process

    private init() throws {
        try FileManager.default.createDirectory(atPath: dataRoot, withIntermediateDirectories: true)
        try Self.stopStale(recordedIn: dataRoot + ".pid")
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.dockerdPath)
        process.arguments = [
            "--data-root", dataRoot, "--exec-root", directory + "/exec", "--pidfile", directory + "/dockerd.pid",
            "--host", "unix://" + directory + "/docker.sock", "--bridge=none", "--iptables=false",
            "--ip6tables=false", "--containerd-namespace", "supervise-\(getpid())",
            "--containerd-plugins-namespace", "supervise-\(getpid())-plugins",
        ]
        let log = try emptyFileForWriting(directory + "/dockerd.log")
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try ContainerInit.withNoSignalBlocked { try process.run() }
        try? String(process.processIdentifier).write(toFile: dataRoot + ".pid", atomically: true, encoding: .utf8)
        let started = eventually(timeout: 90, interval: 0.25) {
            !process.isRunning || (try? cli.run(["version"]))?.status == 0
        }
        guard started, process.isRunning else {
            let lines = (try? String(contentsOfFile: directory + "/dockerd.log", encoding: .utf8)) ?? ""
            stop()
            throw SetupFailure((started ? "it exited: " : "no answer on its socket in 90 s: ")
                + lines.split(separator: "\n").suffix(5).joined(separator: "\n"))
        }
        Self.running.withLock { $0 = self }
        atexit { Dockerd.running.withLock { $0 }?.stop() }
    }

    private static let running = Mutex<Dockerd?>(nil)

    /// `docker -H SOCKET`.
    var cli: EngineCLI { EngineCLI(name: "docker", command: [Self.dockerPath, "-H", "unix://" + socket], runOptions: []) }

    /// Removes every container, then SIGTERMs the daemon (it stops its containerd) and waits for
    /// it, SIGKILL after 30 s; unmounts what it left and removes the private directory.
    func stop() {
        if process.isRunning {
            let containers = (try? cli.run(["ps", "-aq"]))?.output.split(separator: "\n").map(String.init) ?? []
            if !containers.isEmpty { _ = try? cli.run(["rm", "-f"] + containers) }
            kill(process.processIdentifier, SIGTERM)
            if !eventually(timeout: 30, interval: 0.1, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dataRoot + ".pid")
        // dockerd leaves its network namespace mounted in the exec root (exec/netns/default).
        let mounts = (ProcessInspector.read("/proc/self/mounts") ?? "").split(separator: "\n").map { $0.split(separator: " ")[1] }
        for mount in mounts.reversed() where mount.hasPrefix(directory + "/") { umount2(String(mount), Int32(MNT_DETACH)) }
        privateDirectory.remove()
    }

    /// Stops a daemon left on this data root by a test run that was killed before it could stop
    /// it (its parent is no longer a test process); throws when a live run still uses it.
    private static func stopStale(recordedIn pidFile: String) throws {
        guard let pid = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap({ Int32($0) }),
              ProcessInspector.commandLine(pid).hasPrefix(dockerdPath),
              let entry = ProcessInspector.snapshot(pid) else { return }
        let testBinary = { (pid: Int32) in try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") }
        if testBinary(entry.parent) == testBinary(getpid()) {
            throw SetupFailure("another test run (pid \(entry.parent)) has a dockerd (pid \(pid)) on \(pidFile.dropLast(4))")
        }
        kill(pid, SIGTERM)
        guard eventually(timeout: 30, interval: 0.1, { kill(pid, 0) != 0 }) else {
            throw SetupFailure("a dockerd left by an earlier run (pid \(pid)) still runs on \(pidFile.dropLast(4))")
        }
    }
}
