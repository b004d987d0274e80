import Foundation
import Testing
import SuperviseTestSupport

/// The not-running state with real processes, on every freezer here: children parked under a
/// memory budget are reclaimed least recently used first, `status` and the report agree, and an
/// event launches a reclaimed or exited child into the background, where it reads the event.
/// Serialized: a case parks 20 Python workers one after another, and three side by side (one
/// per freezer) on a loaded machine ran past the 20 s waits.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct NotRunningTests {
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    static let mebibytes = 16

    func config(_ text: String) throws -> String {
        let path = temporary.file("supervise.toml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The event lines a child's worker logged.
    func eventsRead(by name: String) -> [String] {
        ((try? String(contentsOfFile: temporary.file(name), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// A child's memory as the freezer's snapshot measures it, from the kernel: its cgroup's
    /// `memory.current` where there is one, else the `VmRSS` of its process.
    static func memory(pid: Int32, cgroup: String?) -> UInt64? {
        if let cgroup, let text = try? String(contentsOfFile: cgroup + "/memory.current", encoding: .utf8),
           let bytes = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return bytes
        }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = UInt64(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// `status`, one line per child in config order.
    static func statuses(_ live: LiveSupervise, count: Int, timeout: Double = 120) -> [StatusLine] {
        live.send("status")
        var lines: [StatusLine] = []
        while lines.count < count, let line = live.nextStatus(timeout: lines.isEmpty ? timeout : 10) { lines.append(line) }
        return lines
    }

    func worker(_ name: String, autostart: Bool, environment: String = "") -> String {
        """
        [child.\(name)]
        command = ["python3", "\(Supervise.worker("parked-worker.py"))", "\(Self.mebibytes)"]
        env = { EVENT_LOG = "\(temporary.path)"\(environment) }
        autostart = \(autostart)

        """
    }

    /// One parked worker's memory, measured on the process while it is suspended.
    func oneWorkersMemory(_ backend: Backend) throws -> UInt64 {
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--config", try config(worker("probe", autostart: false))])
        defer { live.stop() }
        live.send("event probe measure")
        let status = try #require(live.wait(for: "suspended") == "suspended" ? Self.statuses(live, count: 1).first : nil)
        return try #require(Self.memory(pid: status.pid, cgroup: status.cgroup), "no memory figure for pid \(status.pid)")
    }

    @Test(arguments: Backend.usable(in: "NotRunningTests"))
    func twentyParkedWorkersUnderABudgetOfFiveKeepTheFiveUsedLast(backend: Backend) throws {
        let each = try oneWorkersMemory(backend)
        // Five fit, six do not, with half a worker of slack either way for the noise between processes.
        let budget = each * 11 / 2
        let names = (1...20).map { String(format: "w%02d", $0) }
        let path = try config("window = \"5s\"\n" + names.map { worker($0, autostart: false) }.joined())
        let live = try LiveSupervise(["--freezer", backend.rawValue, "--suspended-memory", String(budget), "--config", path])
        defer { live.stop() }
        for name in names { live.send(["event \(name) go", "wait suspended \(name) timeout=20s"]) }
        // The last one reclaimed is `terminating` until its process is reaped.
        live.send("wait not-running w15 timeout=20s")
        let parked = Self.statuses(live, count: 20)
        try #require(parked.count == 20, "status after parking 20: \(live.log)")
        #expect(parked.prefix(15).allSatisfy { $0.state == "not-running" }, "\(parked.map(\.state))")
        #expect(parked.suffix(5).allSatisfy { $0.state == "suspended" }, "\(parked.map(\.state))")
        let held = parked.suffix(5).compactMap { Self.memory(pid: $0.pid, cgroup: $0.cgroup) }
        #expect(held.count == 5 && held.reduce(0, +) <= budget, "the five left hold \(held) bytes; budget \(budget)")
        for reclaimed in parked.prefix(15) {
            #expect(!FileManager.default.fileExists(atPath: "/proc/\(reclaimed.pid)/status")
                    || (try? String(contentsOfFile: "/proc/\(reclaimed.pid)/status", encoding: .utf8))?.contains("python") != true,
                    "reclaimed pid \(reclaimed.pid) is gone")
        }

        // An event to a reclaimed one launches it into the background; it reads the event, is
        // parked again, and the one now suspended longest (w16) makes room.
        live.send(["event w03 push hello there", "wait suspended w03 timeout=20s", "wait not-running w16 timeout=20s"])
        let after = Self.statuses(live, count: 20)
        #expect(after.count == 20 && after[2].state == "suspended" && after[15].state == "not-running",
                "\(after.map(\.state))")
        let read = eventsRead(by: "w03")
        #expect(read.suffix(3) == ["did-finish-launching background reclaimed", "did-enter-background 1 5000 30000",
                                   "event 1 push hello there"], "\(read)")

        live.send("terminate all")
        let run = live.finish()
        #expect(run.status == 0, "a reclaim is never a failure: \(run.stderr)")
        let children = run.report?["children"] as? [[String: Any]] ?? []
        try #require(children.count == 20)
        for (index, child) in children.enumerated() {
            let state = child["state"] as? String
            let by = (child["exit"] as? [String: Any])?["by"] as? String
            let reclaimedLast = index < 15 && index != 2 || index == 15
            #expect(state == (reclaimedLast ? "not-running" : "exited") && by == (reclaimedLast ? "reclaim" : "terminate"),
                    "\(names[index]): \(state ?? "?") by \(by ?? "?")")
        }
        let w03 = children[2]
        #expect((w03["runs"] as? [[String: Any]])?.compactMap { ($0["exit"] as? [String: Any])?["by"] as? String }
                == ["reclaim", "terminate"])
        let notes = (w03["timeline"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "note" }
            .compactMap { $0["text"] as? String }
        #expect(notes.contains("launched for event push") && notes.contains { $0.hasPrefix("reclaimed: ") }, "\(notes)")
    }

    @Test(arguments: Backend.usable(in: "NotRunningTests"))
    func anEventLaunchesAChildThatExitedOnItsOwn(backend: Backend) throws {
        let path = try config(worker("early", autostart: true, environment: ", EXIT_IN_FOREGROUND = \"1\"") + """
            [child.keeper]
            command = ["sleep", "30"]
            """)
        let run = try Supervise.run(["--freezer", backend.rawValue, "--config", path], stdin: """
            wait exited early
            event early push hi
            wait suspended early
            terminate all

            """)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(eventsRead(by: "early") == ["did-finish-launching foreground", "did-finish-launching background",
                                            "did-enter-background 1 5000 30000", "event 1 push hi",
                                            "will-terminate 5000"])
        let early = (run.report?["children"] as? [[String: Any]])?.first ?? [:]
        #expect((early["runs"] as? [Any])?.count == 2)
        #expect((early["timeline"] as? [[String: Any]] ?? []).contains { $0["text"] as? String == "launched for event push" })
    }

    @Test func aOneChildRunEndsWithItsJobUnlessKeptRunning() throws {
        let ending = try LiveSupervise(["--", "sh", "-c", "exit 3"])
        defer { ending.stop() }
        #expect(ending.exitStatus(timeout: 10) == 3, "stdin still open, yet the run ends with its only child")

        let kept = try LiveSupervise(["--keep-running", "--name", "job", "--", "sh", "-c", "exit 0"])
        defer { kept.stop() }
        #expect(kept.wait(for: "exited") == "exited")
        #expect(kept.exitStatus(timeout: 1) == nil, "--keep-running stays up while stdin is open")
        kept.send(["event job push", "wait exited job"])
        let run = kept.finish()
        #expect(run.status == 0, "end of input ends it: \(run.stderr)")
        #expect((run.child["runs"] as? [Any])?.count == 2)
        #expect(run.timeline("note").contains("launched for event push"))
    }

    @Test func anEventAfterTheOnlyChildExitedIsRefusedAsTheRunEnds() throws {
        let run = try Supervise.run(["--name", "job", "--", "sh", "-c", "exit 0"], stdin: "wait exited\nevent job push\n")
        #expect(run.status == 0, "a state's refusal is not a failed step")
        #expect(run.stderr.contains("'event job push': job: cannot deliver event: every child has exited and the run is "
                                    + "ending (--keep-running keeps it up)"), "\(run.stderr)")
        #expect((run.child["runs"] as? [Any])?.count == 1)
    }

    @Test func aChildNeverStartedKeepsTheRunUpUntilEndOfInput() throws {
        let path = try config(worker("idle", autostart: false))
        let live = try LiveSupervise(["--config", path])
        defer { live.stop() }
        #expect(live.wait(for: "not-running") == "not-running")
        #expect(live.exitStatus(timeout: 1) == nil, "a not-running child keeps the run up for its events")
        let run = live.finish(timeout: 10)
        #expect(run.status == 0 && run.child["state"] as? String == "not-running" && run.child["pid"] is NSNull,
                "\(run.child)")
    }
}
