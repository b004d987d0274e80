import Foundation
import SuperviseTestSupport

/// One container of a test run's engine (`Dockerd`, `PodmanStorage`), with `supervise` as its
/// entrypoint (pid 1): a local image of the minbase root (`import`, nothing pulled), this build's supervise and
/// the Swift runtime it links mounted read-only where the debug build looks for them, the test
/// workers at `/workers`, and a host directory at `/reports` for the report. No network.
struct EngineContainer: SupervisedContainer {
    /// The minbase root as an image, imported once into the cached data root.
    static let baseImage = "supervise-test/minbase:bookworm"

    /// Where this machine's Swift runtime is, for the debug build's RUNPATH.
    static let swiftRuntime = "/opt/swift/usr/lib/swift/linux"

    let engine: EngineCLI
    let name: String
    /// Mounted at `/reports`.
    let reports: TemporaryDirectory

    /// What every test container gets mounted: the workers and the reports; in the base image
    /// also supervise at /usr/local/bin (so `supervise ctl` works in `exec`) and the Swift runtime.
    static func binds(reports: TemporaryDirectory, image: String) -> [(source: String, destination: String, readOnly: Bool)] {
        let supervise = image != baseImage ? [] : [(Supervise.binary, "/usr/local/bin/supervise", true), (swiftRuntime, swiftRuntime, true)]
        return supervise + [(Supervise.worker(""), "/workers", true), (reports.path, "/reports", false)]
    }

    /// Starts `supervise ARGUMENTS` as the entrypoint of a new container, detached, with `options`
    /// given to `docker run` (after the defaults: `--network none` and the mounts). `entrypoint`
    /// may be a shell that sets the scene and `exec`s supervise.
    static func start(on engine: EngineCLI, _ arguments: [String], options: [String] = [], image: String = baseImage,
                      entrypoint: String = "/usr/local/bin/supervise") throws -> EngineContainer {
        if image == baseImage { try engine.importMinbase(as: baseImage) }
        let container = EngineContainer(engine: engine, name: "supervise-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
                                        reports: TemporaryDirectory(prefix: "supervise-reports"))
        do {
            try engine.checked(["run", "-d", "--name", container.name, "--network", "none"] + engine.runOptions
                               + binds(reports: container.reports, image: image).flatMap { ["-v", $0.source + ":" + $0.destination + ($0.readOnly ? ":ro" : "")] } + options + ["--entrypoint", entrypoint, image] + arguments)
        } catch {
            container.remove()
            throw error
        }
        return container
    }

    /// How a suite starts containers of `image` on `engine`: `environment` as `-e`, `options`
    /// given to `run`, and `prefix` before supervise's arguments (a shell `entrypoint`'s own).
    static func starter(on engine: EngineCLI, options: [String] = [], image: String = baseImage,
                        entrypoint: String = "/usr/local/bin/supervise", prefix: [String] = []) -> ContainerStart<EngineContainer> {
        { arguments, environment in
            try start(on: engine, prefix + arguments, options: options + environment.flatMap { ["-e", $0] }, image: image, entrypoint: entrypoint)
        }
    }

    /// `docker exec NAME COMMAND`: its status and output.
    func exec(_ command: [String]) throws -> (status: Int32, output: String) {
        try engine.run(["exec", name] + command)
    }

    /// What supervise logged (the container's stderr and stdout).
    func logs() -> String { (try? engine.run(["logs", name]))?.output ?? "" }

    /// `docker inspect -f FORMAT NAME`.
    func inspect(_ format: String) throws -> String { try engine.checked(["inspect", "-f", format, name]) }

    /// The container's pid 1 as the host sees it.
    func hostPID() throws -> Int32 {
        guard let pid = Int32(try inspect("{{.State.Pid}}")), pid > 0 else { throw SetupFailure("\(name) is not running") }
        return pid
    }

    /// The exit status once the container has stopped, waiting at most `timeout` s; nil if it still runs.
    func exitStatus(timeout: Double) -> Int32? {
        var status: Int32?
        guard eventually(timeout: timeout, interval: 0.1, {
            guard (try? inspect("{{.State.Running}}")) == "false" else { return false }
            status = (try? inspect("{{.State.ExitCode}}")).flatMap { Int32($0) }
            return true
        }) else { return nil }
        return status
    }

    /// `docker kill -s SIGNAL NAME`.
    func kill(_ signal: String) throws { try engine.checked(["kill", "-s", signal, name]) }

    /// `docker stop -t GRACE NAME`.
    func stop(grace: Int) throws { try engine.checked(["stop", "-t", String(grace), name]) }

    /// `docker pause NAME`.
    func pause() throws { try engine.checked(["pause", name]) }

    /// `docker unpause NAME`.
    func unpause() throws { try engine.checked(["unpause", name]) }

    /// Removes the container, whatever its state (`rm -f` kills it), and the reports.
    func remove() {
        _ = try? engine.run(["rm", "-f", name])
        reports.remove()
    }
}
