import Foundation
import SuperviseTestSupport
import Testing

/// The truth monitor on fixed scenarios: it notices a lie, and what `supervise` says about a whole
/// tree (suspended, active again, exited) is what the tree's processes do.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(6))) struct TruthTests {
    @Test(arguments: Backend.usable(in: "TruthTests"))
    func monitorNoticesAProcessStoppedBehindTheSupervisorsBack(backend: Backend) throws {
        let run = try MonitoredSupervise(backend, ["--window", "0.3"], aware: true)
        #expect(run.worker.started())
        #expect(run.monitor.wait("active", timeout: 10) == .truthful("active"))
        let one = try #require(run.worker.identity("one"))
        kill(one.pid, SIGSTOP)
        let observation = run.monitor.status()
        kill(one.pid, SIGCONT)
        guard case .lie(let what) = observation else {
            Issue.record("a stopped process under a child said to be active went unnoticed: \(observation)")
            return
        }
        #expect(what.contains("(one) is stopped") && what.contains("beater one"), "\(what)")
        #expect(run.monitor.status() == .truthful("active"))
        let problems = run.finish()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(arguments: Backend.usable(in: "TruthTests"))
    func suspendedMeansEveryProcessOfTheTreeIsFrozen(backend: Backend) throws {
        let run = try MonitoredSupervise(backend, ["--window", "0.3"], aware: true)
        #expect(run.worker.started())
        #expect(run.monitor.wait("active", timeout: 10) == .truthful("active"))
        run.supervise.send(["background"])
        #expect(run.monitor.wait("suspended", timeout: 10) == .truthful("suspended"))
        run.supervise.send(["foreground"])
        #expect(run.monitor.wait("active", timeout: 10) == .truthful("active"))
        let problems = run.finish()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A `foreground` read just as the window ends: the child must run again, whichever came first.
    @Test(arguments: Backend.usable(in: "TruthTests"))
    func foregroundAsTheWindowEndsLeavesTheChildRunning(backend: Backend) throws {
        let run = try MonitoredSupervise(backend, ["--window", "0.5"], aware: false)
        #expect(run.worker.started())
        #expect(run.monitor.wait("active", timeout: 10) == .truthful("active"))
        for round in 1...3 {
            run.supervise.send(["background", "sleep 0.5", "foreground"])
            let observation = run.monitor.status()
            #expect(observation == .truthful("active"), "round \(round)")
            guard observation == .truthful("active") else { break }
        }
        let problems = run.finish()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(arguments: Backend.usable(in: "TruthTests"))
    func killedMainProcessEndsTheRunWithNothingLeft(backend: Backend) throws {
        let run = try MonitoredSupervise(backend, ["--window", "0.3"], aware: true)
        #expect(run.worker.started())
        #expect(run.monitor.wait("active", timeout: 10) == .truthful("active"))
        run.kill("main")
        let observation = run.monitor.wait("exited", timeout: 10)
        #expect(observation == .truthful("exited") || observation == .ended, "\(observation)")
        let problems = run.finish()
        #expect(problems.isEmpty, "\(problems)")
    }
}
