import Foundation
import SuperviseTestSupport

/// supervise as pid 1 of a container, whatever runs it (`EngineContainer` on Docker or Podman,
/// `RuncContainer` on runc alone): what the container tests do to it, each in the runtime's own
/// words, and what they read back, so one scenario runs on every runtime.
protocol SupervisedContainer {
    /// Mounted at `/reports`.
    var reports: TemporaryDirectory { get }

    /// `exec COMMAND` in the container: its status and output.
    func exec(_ command: [String]) throws -> (status: Int32, output: String)

    /// What supervise logged (the container's stderr and stdout).
    func logs() -> String

    /// The container's pid 1 as the host sees it, once it runs.
    func hostPID() throws -> Int32

    /// The exit status once the container has stopped, waiting at most `timeout` s; nil if it still runs.
    func exitStatus(timeout: Double) -> Int32?

    /// Sends `signal` (`USR1`, `TERM`) to pid 1, as `docker kill -s` and `runc kill` do.
    func kill(_ signal: String) throws

    /// The runtime's stop (`docker stop -t GRACE`): SIGTERM to pid 1, SIGKILL if it still runs
    /// `grace` s later; returns once the container has stopped.
    func stop(grace: Int) throws

    /// Freezes the whole container (`docker pause`, `runc pause`).
    func pause() throws

    /// Thaws it (`docker unpause`, `runc resume`).
    func unpause() throws

    /// Kills and deletes the container, whatever its state, and removes the reports.
    func remove()
}

/// How a suite starts `supervise ARGUMENTS` as pid 1 of a new container of its runtime, with
/// `environment` (`NAME=value`): the scenarios choose the arguments, the suite the runtime.
typealias ContainerStart<Container: SupervisedContainer> = (_ arguments: [String], _ environment: [String]) throws -> Container

extension SupervisedContainer {
    /// The report supervise wrote at `/reports/NAME` in the container.
    func report(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: reports.file(name)))
        guard let report = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SetupFailure("/reports/\(name) is not a JSON object")
        }
        return report
    }
}
