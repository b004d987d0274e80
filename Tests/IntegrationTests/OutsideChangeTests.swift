import Foundation
import Testing
import SuperviseTestSupport

/// What someone else does to a suspended child, through the real binary: a thaw is undone
/// (frozen again, with a timeline note), and a SIGKILL a cgroup v1 freeze holds back is let
/// through, so `status`, `wait` and the report say what the child is.
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct OutsideChangeTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    func counter(_ path: String) -> Int {
        Int(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The processes of the tree that have not exited: a zombie (a `sleep` that ended while the
    /// child ran, its parent stopped before reaping it) does not run, frozen or not.
    func liveTree(of pid: Int32) -> [ProcessEntry] {
        ProcessInspector.tree(of: pid).filter(\.isAlive)
    }

    /// Thaws the suspended child the way a person with a shell would: the cgroup's own file,
    /// or SIGCONT to the child's process group.
    func thawFromOutside(_ backend: Backend, pid: Int32, cgroup: String?) throws {
        switch backend {
        case .cgroup2: try "0".write(toFile: try #require(cgroup) + "/cgroup.freeze", atomically: false, encoding: .utf8)
        case .cgroup1: try "THAWED".write(toFile: try #require(cgroup) + "/freezer.state", atomically: false, encoding: .utf8)
        case .sigstop: kill(-pid, SIGCONT)
        }
    }

    @Test(arguments: Backend.usable(in: "OutsideChangeTests"))
    func childThawedFromOutsideIsFrozenAgain(backend: Backend) throws {
        let count = directory.appendingPathComponent("counter").path
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--window", "0", "--freeze-timeout", "5",
                                      "--", Supervise.worker("counter.sh"), count])
        defer { live.stop() }
        #expect(eventually { counter(count) > 0 })
        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        let status = try #require(live.status())
        let pid = try #require((status["pid"] as? Int).map(Int32.init))
        let probe = FreezeProbe(backend: backend, cgroup: status["cgroup"] as? String)

        try thawFromOutside(backend, pid: pid, cgroup: probe.cgroup)
        if backend != .cgroup1 {
            // cgroup.events and SIGCONT to a child are told to the supervisor: it needs no command.
            #expect(eventually { probe.unfrozen(liveTree(of: pid)).isEmpty },
                    "frozen again unasked: \(probe.unfrozen(liveTree(of: pid)))")
        }
        // cgroup v1 tells nothing: the wait looks. A look may find more to freeze (sigstop: a
        // process the loop forked while it ran), and the `status` after the wait looks again.
        #expect((1...3).contains { _ in live.wait(for: "suspended") == "suspended" }, "\(live.log)")
        #expect(probe.unfrozen(liveTree(of: pid)) == [], "suspended means frozen")
        let frozenAt = counter(count)
        // The point: a window in which the running counter would have moved.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(counter(count) == frozenAt, "no progress once suspended again")

        #expect(live.terminate() == 0)
        let run = live.finish()
        let note = try #require(run.timeline("note").first { $0.hasPrefix("thawed from outside (") }, "\(run.timeline)")
        #expect(note.hasSuffix("): freezing it again"))
        let states = run.timeline("state")
        #expect(states.starts(with: ["active", "background", "suspending", "suspended", "suspending", "suspended"]), "\(states)")
        #expect(run.timeline("freeze").count == 2, "the second freeze is verified too: \(run.timeline("freeze"))")
    }

    /// A continued process that is not the supervisor's own child sends it nothing: `status` looks.
    @Test func continuedDescendantIsSeenWhenStatusIsAsked() throws {
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "5",
                                      "--", Supervise.worker("tree.sh"), directory.path])
        defer { live.stop() }
        let escaped = directory.appendingPathComponent("escaped").path
        #expect(eventually { counter(escaped) > 2 })
        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        let group = try #require(Int32(String(contentsOfFile: escaped + ".pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))

        kill(-group, SIGCONT)  // the setsid'd loop and its sleep: a grandchild's group
        let before = counter(escaped)
        #expect(eventually { counter(escaped) > before }, "the loop runs: the supervisor was not told")
        #expect(["suspending", "suspended"].contains(live.status()?["state"] as? String ?? ""))
        #expect(live.wait(for: "suspended") == "suspended")
        let frozenAt = counter(escaped)
        // The point: a window in which the running loop would have moved.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(counter(escaped) == frozenAt, "stopped again")

        #expect(live.terminate() == 0)
        let run = live.finish()
        #expect(run.timeline("note").contains { $0.hasPrefix("thawed from outside (process ") }, "\(run.timeline)")
    }

    /// A grandchild continued from outside that forks and is stopped again leaves every process
    /// the freeze stopped stopped: only the new one shows the tree ran. The supervisor is told
    /// nothing; `status` looks, and the kernel's count of the grandchild's runs (schedstat)
    /// having moved, scans `/proc` and finds it.
    @Test func aGrandchildContinuedThatForkedAndStoppedAgainIsSeen() throws {
        let inner = #"trap 'sleep 60 &' CONT; while :; do sleep 100 & wait; done"#
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "5",
                                      "--", "sh", "-c", "sh -c \"$0\" & wait", inner])
        defer { live.stop() }
        let status = try #require(live.status())
        let child = try #require((status["pid"] as? Int).map(Int32.init))
        #expect(eventually { liveTree(of: child).count == 3 }, "sh, sh, sleep: \(liveTree(of: child))")
        let shell = try #require(liveTree(of: child).first { $0.parent == child })
        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        let frozen = Set(liveTree(of: child).map(\.pid))

        kill(shell.pid, SIGCONT)
        #expect(eventually { ProcessInspector.liveChildren(of: shell.pid).count > 1 }, "the trap forked")
        kill(shell.pid, SIGSTOP)
        #expect(eventually { ProcessInspector.snapshot(shell.pid)?.state == "T" })
        #expect(liveTree(of: child).filter { frozen.contains($0.pid) }.allSatisfy { $0.state == "T" },
                "every process the freeze stopped is stopped again")

        #expect(["suspending", "suspended"].contains(live.status()?["state"] as? String ?? ""))
        #expect(live.wait(for: "suspended") == "suspended")
        #expect(live.terminate() == 0)
        let run = live.finish()
        #expect(run.timeline("note").contains { $0.hasPrefix("thawed from outside (process ") && $0.contains("started while") },
                "\(run.timeline)")
    }

    /// A frozen cgroup v1 task can't act on SIGKILL until thawed; the wait looks, sees it
    /// pending, and lets it through. (cgroup v2 and sigstop children die of it frozen.)
    @Test(arguments: Backend.usable(in: "OutsideChangeTests"))
    func childKilledFromOutsideWhileFrozenIsSeenExited(backend: Backend) throws {
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--window", "0", "--freeze-timeout", "5",
                                      "--", "sleep", "30"])
        defer { live.stop() }
        live.send("background")
        try #require(live.wait(for: "suspended") == "suspended", "\(live.log)")
        let status = try #require(live.status())
        let pid = try #require((status["pid"] as? Int).map(Int32.init))

        kill(pid, SIGKILL)
        if backend == .cgroup1 {
            // The kill waits for a thaw, so supervise is still there to answer. (Elsewhere the
            // child dies, and supervise with it, without being asked.)
            let state = live.status()?["state"] as? String
            #expect(state == "terminating", "status looks: \(state ?? "no status")")
        }
        live.send("wait exited timeout=10s")
        let run = live.finish()
        #expect(run.status == 137, "the wait did not fail (123): \(run.stderr)")
        #expect(run.exit["description"] as? String == "killed by SIGKILL (9)")
        #expect(run.exit["status"] as? Int == 137)
        #expect(run.exit["by"] as? String == "self")
        #expect(run.elapsed < 8, "seen when the wait started, not when it timed out")
        if backend == .cgroup1 {
            #expect(run.timeline("note").contains {
                $0 == "its main process was sent SIGKILL from outside while frozen: thawed so that it can die"
            }, "\(run.timeline)")
            #expect(run.timeline("state").suffix(2) == ["terminating", "exited"])
        }
    }
}
