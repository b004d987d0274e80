import Foundation
import Synchronization
import SuperviseTestSupport

/// Podman (no daemon) with runc and storage of the test run's own: `--root` under the engine
/// cache (`.build/engines/podman`, so images are kept between runs), `--runroot` and `--tmpdir` in
/// /tmp (Podman records the run root with the storage, and its sockets' paths must stay short),
/// cgroupfs, events to a file. crun refuses this hybrid host, hence
/// `--runtime runc`. Its containers are removed and its storage unmounted when the test process exits.
final class PodmanStorage: Sendable {
    static let podmanPath = "/usr/bin/podman"

    /// Why Podman can't be run here, checked without running it.
    static let missingReason: String? = [podmanPath, "/usr/bin/conmon", "/usr/sbin/runc"]
        .first { !FileManager.default.isExecutableFile(atPath: $0) }
        .map { "\($0) is not installed (podman, conmon, runc; scripts/setup-debian.sh installs them)" }

    /// The run's storage, set up the first time it is asked for, or why Podman can't run a container.
    static let shared: Result<PodmanStorage, any Error> = Result { try PodmanStorage() }

    let root = DebianRoot.cache + "/podman"
    /// The run root of this storage, named for it: FNV-1a of the root's path.
    var runRoot: String {
        "/tmp/supervise-podman-" + String(root.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }, radix: 16)
    }

    /// `podman` with the run's storage and runc.
    var cli: EngineCLI {
        EngineCLI(name: "podman",
                  command: [Self.podmanPath, "--root", root, "--runroot", runRoot + "/run", "--tmpdir", runRoot + "/tmp",
                            "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"],
                  // Podman asks runc for rlimits above this VM's hard limits (runc can't raise
                  // them without cap_sys_resource, which the VM's bounding set lacks).
                  runOptions: ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"])
    }

    private init() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let probe = try cli.run(["run", "--rm", "--network", "none"] + cli.runOptions + [try Self.image(cli), "true"])
        guard probe.status == 0 else {
            stop()
            throw SetupFailure("podman run exited \(probe.status): \(probe.output)")
        }
        atexit { if case .success(let storage) = PodmanStorage.shared { storage.stop() } }
    }

    private static func image(_ cli: EngineCLI) throws -> String {
        try cli.importMinbase(as: EngineContainer.baseImage)
        return EngineContainer.baseImage
    }

    /// Removes every container and unmounts the storage's layers.
    func stop() {
        _ = try? cli.run(["rm", "-af", "-t", "0"])
        _ = try? cli.run(["unmount", "-a"])
    }
}
