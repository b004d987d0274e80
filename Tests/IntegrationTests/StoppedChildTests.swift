import Foundation
import Testing
import SuperviseTestSupport

/// A child stopped by a signal (`signal NAME STOP`, a SIGTTIN with no handler) can't run, so
/// `status` says so (`stopped`) and `foreground` or a thaw continues it; a job-control signal
/// sent while the child is suspended is delivered after the thaw, on every freezer.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct StoppedChildTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()

    /// The `stopped` of the child's status: the signal's name, `none` for null, `missing` without the key.
    func stoppedFlag(_ live: LiveSupervise) -> String {
        guard let status = live.status() else { return "no status" }
        if let signal = status["stopped"] as? String { return signal }
        return status["stopped"] is NSNull ? "none" : "missing"
    }

    /// The child's pid once it is active.
    func activePID(_ live: LiveSupervise) throws -> Int32 {
        try #require(live.wait(for: "active") == "active", "\(live.log)")
        return Int32(try #require(live.status()?["pid"] as? Int))
    }

    @Test(arguments: Backend.usable(in: "StoppedChildTests"))
    func aChildStoppedBySIGSTOPIsShownStoppedUntilForegroundContinuesIt(backend: Backend) throws {
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--name", "w", "--window", "0",
                                      "--freeze-timeout", "5", "--", "sleep", "60"])
        defer { live.stop() }
        let pid = try activePID(live)

        live.send("signal w STOP")
        #expect(eventually { ProcessInspector.isStopped(pid) })
        #expect(eventually { stoppedFlag(live) == "SIGSTOP" }, "status says it can't run: \(stoppedFlag(live))")
        live.send("foreground")
        #expect(eventually { stoppedFlag(live) == "none" })
        #expect(eventually { !ProcessInspector.isStopped(pid) }, "foreground continued it")

        // Stopped again, then through a background → suspended → foreground cycle.
        live.send("signal w STOP")
        #expect(eventually { stoppedFlag(live) == "SIGSTOP" })
        live.send("background")
        #expect(live.wait(for: "suspended") == "suspended", "\(live.log)")
        live.send("foreground")
        #expect(live.wait(for: "active") == "active")
        #expect(eventually { !ProcessInspector.isStopped(pid) }, "the thaw continued it")
        #expect(stoppedFlag(live) == "none")

        #expect(live.terminate() == 0, "\(live.log)")
        let run = live.finish()
        let stops = run.timeline("note").filter { $0.hasPrefix("its main process was stopped by SIGSTOP") }
        #expect(stops.count == 2, "each stop noted once: \(run.timeline("note"))")
        #expect(run.child["stopped"] is NSNull, "the report says it is not stopped at the end")
    }

    /// The default action of SIGTTIN (a read of the terminal from a background process group)
    /// stops the process, as SIGSTOP does.
    @Test func aChildStoppedBySIGTTINIsShownStoppedUntilForegroundContinuesIt() throws {
        let live = try LiveSupervise(["--name", "w", "--", "sleep", "60"])
        defer { live.stop() }
        let pid = try activePID(live)

        live.send("signal w TTIN")
        #expect(eventually { ProcessInspector.isStopped(pid) })
        #expect(eventually { stoppedFlag(live) == "SIGTTIN" }, "\(stoppedFlag(live))")
        #expect(live.status()?["state"] as? String == "active")
        live.send("foreground")
        #expect(eventually { !ProcessInspector.isStopped(pid) })
        #expect(stoppedFlag(live) == "none")
        #expect(live.terminate() == 0, "\(live.log)")
        #expect(live.finish().timeline("note").contains { $0.hasPrefix("its main process was stopped by SIGTTIN") })
    }

    /// On sigstop the thaw's SIGCONT makes the kernel discard a pending SIGTSTP, SIGTTIN,
    /// SIGTTOU or SIGSTOP; cgroup freezers hold it until the thaw. Either way the child gets it
    /// once thawed: a handled one runs its handler, SIGSTOP stops the child and says so.
    @Test(arguments: Backend.usable(in: "StoppedChildTests"))
    func jobControlSignalsSentWhileSuspendedAreDeliveredAfterTheThaw(backend: Backend) throws {
        let received = temporary.file("received")
        let script = """
            import os, signal, sys, time
            log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            # os.write, not a buffered file: both handlers can run at once after the thaw, one
            # inside the other's write, which a buffered file refuses (reentrant call).
            for number in (signal.SIGTSTP, signal.SIGTTIN):
                signal.signal(number, lambda number, frame: os.write(log, (signal.Signals(number).name + "\\n").encode()))
            os.write(log, b"ready\\n")
            while True: time.sleep(0.05)
            """
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--name", "w", "--window", "0",
                                      "--freeze-timeout", "5", "--", "python3", "-c", script, received])
        defer { live.stop() }
        let pid = try activePID(live)
        func lines() -> [String] {
            ((try? String(contentsOfFile: received, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        #expect(eventually { lines() == ["ready"] })

        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        live.send(["signal w TSTP", "signal w TTIN", "foreground"])
        #expect(live.wait(for: "active") == "active")
        #expect(eventually { lines() == ["ready", "SIGTSTP", "SIGTTIN"] }, "handled after the thaw: \(lines())")

        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        live.send(["signal w STOP", "foreground"])
        #expect(live.wait(for: "active") == "active")
        #expect(eventually { ProcessInspector.isStopped(pid) }, "stopped once thawed")
        #expect(eventually { stoppedFlag(live) == "SIGSTOP" }, "\(stoppedFlag(live))")

        #expect(live.terminate() == 0, "terminate continues it, and it dies of SIGTERM: \(live.log)")
        _ = live.finish()
    }
}
