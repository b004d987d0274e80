import Foundation
import SuperviseTestSupport

/// One container of the run's private `Dockerd`, with `supervise` as its entrypoint (pid 1):
/// a local image of the minbase root (`docker import`, nothing pulled), this build's supervise and
/// the Swift runtime it links mounted read-only where the debug build looks for them, the test
/// workers at `/workers`, and a host directory at `/reports` for the report. No network.
struct DockerContainer {
    /// The minbase root as an image, imported once into the cached data root.
    static let baseImage = "supervise-test/minbase:bookworm"

    /// Where this machine's Swift runtime is, for the debug build's RUNPATH.
    static let swiftRuntime = "/opt/swift/usr/lib/swift/linux"

    let daemon: Dockerd
    let name: String
    /// Mounted at `/reports`.
    let reports: TemporaryDirectory

    /// The mounts every test container gets: supervise at /usr/local/bin (so `supervise ctl`
    /// works in `docker exec`), the Swift runtime, the workers, the reports.
    static func mounts(reports: TemporaryDirectory) -> [String] {
        ["-v", Supervise.binary + ":/usr/local/bin/supervise:ro", "-v", swiftRuntime + ":" + swiftRuntime + ":ro",
         "-v", Supervise.worker("") + ":/workers:ro", "-v", reports.path + ":/reports"]
    }

    /// Imports the minbase root as `baseImage` unless the data root has it (first run only).
    private static let imported: Result<String, any Error> = Result {
        let daemon = try Dockerd.daemon()
        if try daemon.docker(["image", "inspect", baseImage]).status != 0 {
            try daemon.checked(["import", try DebianRoot.tarball("minbase"), baseImage])
        }
        return baseImage
    }

    /// Starts `supervise ARGUMENTS` as the entrypoint of a new container, detached, with `options`
    /// given to `docker run` (after the defaults: `--network none` and the mounts). `entrypoint`
    /// may be a shell that sets the scene and `exec`s supervise.
    static func start(_ arguments: [String], options: [String] = [], image: String? = nil,
                      entrypoint: String = "/usr/local/bin/supervise") throws -> DockerContainer {
        let daemon = try Dockerd.daemon()
        let image = try image ?? imported.get()
        let container = DockerContainer(daemon: daemon, name: "supervise-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
                                        reports: TemporaryDirectory(prefix: "supervise-reports"))
        do {
            try daemon.checked(["run", "-d", "--name", container.name, "--network", "none"] + mounts(reports: container.reports)
                               + options + ["--entrypoint", entrypoint, image] + arguments)
        } catch {
            container.remove()
            throw error
        }
        return container
    }

    /// `docker exec NAME COMMAND`: its status and output.
    func exec(_ command: [String]) throws -> (status: Int32, output: String) {
        try daemon.docker(["exec", name] + command)
    }

    /// What supervise logged (the container's stderr and stdout).
    func logs() -> String { (try? daemon.docker(["logs", name]))?.output ?? "" }

    /// `docker inspect -f FORMAT NAME`.
    func inspect(_ format: String) throws -> String { try daemon.checked(["inspect", "-f", format, name]) }

    /// The container's pid 1 as the host sees it.
    func hostPID() throws -> Int32 {
        guard let pid = Int32(try inspect("{{.State.Pid}}")), pid > 0 else { throw SetupFailure("\(name) is not running") }
        return pid
    }

    /// The exit status once the container has stopped, waiting at most `timeout` s; nil if it still runs.
    func exitStatus(timeout: Double) -> Int32? {
        var status: Int32?
        _ = eventually(timeout: timeout, interval: 0.1) {
            guard (try? inspect("{{.State.Running}}")) == "false" else { return false }
            status = (try? inspect("{{.State.ExitCode}}")).flatMap { Int32($0) }
            return true
        }
        return status
    }

    /// The report supervise wrote at `/reports/NAME` in the container.
    func report(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: reports.file(name)))
        guard let report = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SetupFailure("/reports/\(name) is not a JSON object")
        }
        return report
    }

    /// Removes the container, whatever its state (`rm -f` kills it), and the reports.
    func remove() {
        _ = try? daemon.docker(["rm", "-f", name])
        reports.remove()
    }
}
