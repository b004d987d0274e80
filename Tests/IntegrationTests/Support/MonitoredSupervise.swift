import Foundation
import SuperviseTestSupport

/// A real supervisor running `Workers/truth-worker.sh`, watched by a truth monitor.
final class MonitoredSupervise {
    /// The truth worker's files; removed with the monitored run.
    private let temporary = TemporaryDirectory()
    let worker: TruthWorker
    let supervise: LiveSupervise
    let monitor: TruthMonitor
    /// The main process was SIGKILLed through `kill(_:)`.
    private(set) var mainKilled = false
    /// The supervisor's exit status, once `finish()` has run.
    private(set) var exitStatus: Int32?
    private let grace: Double

    /// Starts `supervise OPTIONS -- truth-worker.sh` (named `truth`) with `backend`; the worker says hello if `aware`.
    init(_ backend: Backend, _ options: [String], aware: Bool, grace: Double = 2) throws {
        self.grace = grace
        worker = try TruthWorker(in: temporary.url)
        supervise = try LiveSupervise(
            ["--freezer", backend.rawValue, "--name", "truth", "--freeze-timeout", "5", "--grace", TruthMonitor.seconds(grace)]
                + options + ["--"] + worker.command,
            environment: ["AWARE": aware ? "1" : "0"])
        monitor = TruthMonitor(backend: backend, supervise: supervise, worker: worker)
    }

    /// SIGKILLs one beater of the tree (`main` is the child's main process), if it is still alive.
    func kill(_ beater: String) {
        mainKilled = mainKilled || beater == "main"
        if let identity = worker.identity(beater), identity.isAlive { Glibc.kill(identity.pid, SIGKILL) }
    }

    /// Terminates the child (if the run is not over), waits for the supervisor to exit, and returns what
    /// the end contradicts: processes or cgroups left, an exit status or report that disagrees with what
    /// happened. Then kills whatever of the tree was left.
    func finish() -> [String] {
        supervise.send(["terminate"])
        let end = supervise.end(timeout: grace + 20, drain: 5)
        exitStatus = end.run.status
        var problems = end.exitedInTime ? [] : ["supervise did not exit within \(grace + 20) s of terminate"]
        problems += monitor.leftovers()
        problems += OutcomeCheck(status: end.run.status, report: end.run.report, stderr: supervise.stderrLines,
                                 monitor: monitor, mainKilled: mainKilled).problems()
        monitor.cleanUp()
        return problems
    }
}
