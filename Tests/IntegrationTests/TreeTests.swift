import Foundation
import Testing
import SuperviseTestSupport

/// Whole process trees, through the real binary: frozen, resumed, signalled and killed as one,
/// including the loops that left the child's process group (`escaped`, a setsid'd child) and
/// its parent (`orphan`, double-forked, so the supervisor adopted it).
@Suite(.blockingThreads, .timeLimit(.minutes(5))) struct TreeTests {
    static let loops = ["main", "one", "two", "escaped", "orphan"]
    /// Removed with the suite instance, after each test.
    let temporary = TemporaryDirectory()
    var directory: URL { temporary.url }

    func counter(_ name: String, in directory: URL? = nil) -> Int {
        Int(read(name, in: directory ?? self.directory)) ?? -1
    }

    func pid(_ name: String, in directory: URL? = nil) -> Int32 {
        Int32(read(name + ".pid", in: directory ?? self.directory)) ?? 0
    }

    func read(_ file: String, in directory: URL) -> String {
        ((try? String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The state letter of `/proc/PID/stat` (`R`, `S`, `T`, `Z`…), or `nil` when there is no such process.
    func state(_ pid: Int32) -> Character? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].first
    }

    func alive(_ pid: Int32) -> Bool {
        guard let state = state(pid) else { return false }
        return state != "Z"
    }

    func waitForLoops(in directory: URL? = nil) -> Bool {
        eventually { Self.loops.allSatisfy { counter($0, in: directory) > 2 } }
    }

    /// Which loops moved during `seconds`.
    func moving(during seconds: Double, in directory: URL? = nil) -> Set<String> {
        let before = Dictionary(uniqueKeysWithValues: Self.loops.map { ($0, counter($0, in: directory)) })
        // The point: a window in which every running loop writes (each does every 20 ms or so).
        Thread.sleep(forTimeInterval: seconds)
        return Set(Self.loops.filter { counter($0, in: directory) != before[$0] })
    }

    /// Which loops write within `timeout` seconds: all of them, soon, where they run. (A fixed
    /// 0.3 s look missed a loop whose `sleep` and `mv` took longer on a busy machine.)
    func movers(within timeout: Double = 5, in directory: URL? = nil) -> Set<String> {
        let before = Dictionary(uniqueKeysWithValues: Self.loops.map { ($0, counter($0, in: directory)) })
        var moved: Set<String> = []
        // The set is the answer, a timeout included: callers compare it with the loops they expect.
        _ = eventually(timeout: timeout, interval: 0.02) {
            moved = Set(Self.loops.filter { counter($0, in: directory) != before[$0] })
            return moved.count == Self.loops.count
        }
        return moved
    }

    /// Whether `pid` can't run: stopped (`T`), or (dash) parked in `vfork` (`D`) for a child
    /// that was stopped before its exec.
    func halted(_ pid: Int32) -> Bool {
        switch state(pid) {
        case "T": true
        case "D": ["kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"]
            .contains((try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "")
        default: false
        }
    }

    /// Whether every loop's process is halted, waiting up to 10 s, and then a moment more: a
    /// loop stops before the `mv` it forked, and the supervisor verifies the freeze after both.
    func allStopped(in directory: URL? = nil) -> Bool {
        // Kept: the supervisor's own check of the freeze is not visible from outside with --control none.
        defer { Thread.sleep(forTimeInterval: 0.3) }
        return eventually { Self.loops.allSatisfy { halted(pid($0, in: directory)) } }
    }

    func termed(_ loop: String, in directory: URL? = nil) -> Bool {
        read(loop + ".term", in: directory ?? self.directory) == "term"
    }

    @Test(arguments: Backend.usable(in: "TreeTests"))
    func treeIsFrozenResumedAndSignalledAsOne(backend: Backend) throws {
        var whileFrozen: Set<String> = ["?"], afterThaw: Set<String> = []
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0", "--freeze-timeout", "5", "--control", "none", "--",
                                     Supervise.worker("tree.sh"), directory.path]) { process in
            #expect(waitForLoops())
            let child = SupervisedChild(backend: backend, supervisorPID: process.processIdentifier)
            kill(process.processIdentifier, SIGUSR1)
            #expect(child.waitFrozen(), "the kernel never showed the tree frozen")
            whileFrozen = moving(during: 0.5)
            kill(process.processIdentifier, SIGUSR2)
            #expect(child.waitThawed(), "the kernel still holds part of the tree")
            afterThaw = movers()
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(run.timeline("state").contains("suspended"), "\(run.stderr)")
        #expect(whileFrozen.isEmpty, "every process of the tree is frozen: \(whileFrozen) moved")
        #expect(afterThaw == Set(Self.loops))
        for loop in Self.loops {
            #expect(termed(loop), "\(loop) did not get the stop signal")
            #expect(eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) outlived the run")
        }
    }

    /// The two loops that left the process group are stopped (`T`) while the child is
    /// `suspended`, run again after `foreground`, and are killed when they ignore the stop signal.
    @Test func sigstopStopsAndKillsWhatLeftTheGroup() throws {
        let live = try LiveSupervise(["--freezer", "sigstop", "--window", "0", "--freeze-timeout", "5", "--grace", "0.5", "--",
                                      Supervise.worker("tree.sh"), directory.path], environment: ["STUBBORN": "1"])
        defer { live.stop() }
        #expect(waitForLoops())
        live.send(["background", "wait suspended timeout=10s"])
        let stoppedWhileSuspended = allStopped()
        #expect(moving(during: 0.3).isEmpty)
        live.send(["foreground", "wait active"])
        #expect(eventually { Self.loops.allSatisfy { !halted(pid($0)) } }, "still stopped after foreground")
        let movingAfter = movers()
        live.send("terminate")
        let run = live.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.timeline("state") == ["active", "background", "suspending", "suspended", "active", "terminating", "exited"])
        #expect(stoppedWhileSuspended, "states: \(Self.loops.map { "\($0) \(state(pid($0)).map(String.init) ?? "gone")" })")
        #expect(movingAfter == Set(Self.loops))
        #expect(termed("main"))
        for loop in Self.loops {
            #expect(eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) outlived the run")
        }
    }

    @Test(arguments: Backend.usable(in: "TreeTests"))
    func wholeTreeIsKilledOnExpiry(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0.2", "--limit", "1", "--expiry-warning", "0.3",
                                     "--", Supervise.worker("tree.sh"), directory.path],
                                    stdin: "sleep 0.3\nbackground\nwait exited timeout=10s\n", environment: ["AWARE": "1"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(run.violations.first?["kind"] as? String == "expiry")
        for loop in Self.loops {
            #expect(eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) survived the kill")
        }
    }

    /// Two children under sigstop: freezing one leaves the other's tree running, and an orphan
    /// goes with the child its `SUPERVISE_NAME` names.
    @Test func sigstopFreezesEachChildsTreeAlone() throws {
        let first = directory.appendingPathComponent("first"), second = directory.appendingPathComponent("second")
        for child in [first, second] { try FileManager.default.createDirectory(at: child, withIntermediateDirectories: true) }
        let config = directory.appendingPathComponent("supervise.toml")
        try """
            freezer = "sigstop"
            window = 0
            freeze-timeout = 5
            [child.first]
            command = ["\(Supervise.worker("tree.sh"))", "\(first.path)"]
            [child.second]
            command = ["\(Supervise.worker("tree.sh"))", "\(second.path)"]
            """.write(to: config, atomically: true, encoding: .utf8)
        let live = try LiveSupervise(["--config", config.path])
        defer { live.stop() }
        #expect(waitForLoops(in: first) && waitForLoops(in: second))
        live.send(["background first", "wait suspended first timeout=10s"])
        #expect(allStopped(in: first))
        let firstMoving = moving(during: 0.5, in: first)
        let secondMoving = movers(in: second)
        live.send(["foreground first", "wait active first", "terminate all"])
        let run = live.finish()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(firstMoving.isEmpty, "first's tree moved while suspended: \(firstMoving)")
        #expect(secondMoving == Set(Self.loops), "second's tree must keep running: only \(secondMoving) moved")
        for child in [first, second] {
            for loop in Self.loops {
                #expect(termed(loop, in: child), "\(child.lastPathComponent)'s \(loop) did not get the stop signal")
                #expect(eventually(timeout: 5) { !alive(pid(loop, in: child)) })
            }
        }
    }

    /// With several children, an orphan that cleared its environment names no child: it is
    /// frozen with none (it runs on while its parent's child is suspended) and killed at the end.
    @Test func sigstopKillsANamelessOrphanAtTheEnd() throws {
        let script = "(env -i setsid sh -c 'echo $$ > \(directory.path)/nameless.pid; while :; do sleep 0.02; done' &); "
            + "while :; do sleep 0.02; done"
        let config = directory.appendingPathComponent("supervise.toml")
        try """
            freezer = "sigstop"
            window = 0
            [child.first]
            command = ["sh", "-c", "\(script)"]
            [child.second]
            command = ["sleep", "30"]
            """.write(to: config, atomically: true, encoding: .utf8)
        var stateWhileSuspended: Character?
        let run = try Supervise.run(["--config", config.path],
                                    stdin: "sleep 0.5\nbackground first\nwait suspended first timeout=10s\nsleep 1\nterminate all\n") { process in
            #expect(eventually { pid("nameless") > 0 })
            // Look while first is suspended: once its shell is stopped, a second before the terminate.
            #expect(eventually {
                ProcessInspector.descendants(of: process.processIdentifier).contains {
                    ProcessInspector.commandLine($0.pid).hasPrefix("sh -c (env -i") && ProcessInspector.isStopped($0.pid)
                }
            }, "first's shell was never stopped")
            stateWhileSuspended = state(pid("nameless"))
        }
        #expect(run.status == 0, "\(run.stderr)")
        // Not stopped: running, sleeping, or for a moment in the kernel (D) as it forks its sleeps.
        #expect(stateWhileSuspended.map { "RSD".contains($0) } == true, "nameless was \(String(describing: stateWhileSuspended))")
        #expect(eventually(timeout: 5) { !alive(pid("nameless")) }, "the nameless orphan outlived the run")
    }

    @Test(arguments: Backend.usable(in: "TreeTests"))
    func supervisorKilledWhileTheChildIsFrozenLeavesNothingAfterTheNextRun(backend: Backend) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Supervise.binary)
        process.arguments = ["--freezer", backend.rawValue, "--window", "0", "--control", "none",
                             "--", Supervise.worker("tree.sh"), directory.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        #expect(waitForLoops())
        let cgroups = SupervisorCgroups.holding(pid("main"))
        #expect(cgroups.isEmpty == (backend == .sigstop), "the supervisor's cgroups: \(cgroups)")
        kill(process.processIdentifier, SIGUSR1)
        let child = SupervisedChild(backend: backend, supervisorPID: process.processIdentifier)
        #expect(child.waitFrozen(), "the kernel never showed the tree frozen")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The next run sweeps what the dead supervisor left: it thaws, kills and removes.
        let next = try Supervise.run(["--freezer", backend.rawValue, "--", "true"])
        #expect(next.status == 0)
        // sigstop keeps no record: what left the process group stays stopped (the documented limit).
        let outsideTheGroup = ["escaped", "orphan"]
        for loop in Self.loops where backend != .sigstop || !outsideTheGroup.contains(loop) {
            #expect(eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) survived its supervisor")
        }
        // A run beside this one may be sweeping them right now: its lock makes the next run pass
        // them over, and they are gone once that sweep ends (as in NamespaceOwnershipTests).
        for path in cgroups {
            #expect(eventually(timeout: 10) { !FileManager.default.fileExists(atPath: path) }, "stale cgroup left: \(path)")
        }
        if backend == .sigstop {
            for loop in outsideTheGroup {
                #expect(halted(pid(loop)), "\(loop) should be left stopped")
                for process in withDescendants(pid(loop)) { kill(process, SIGKILL) }
            }
        }
    }

    /// `pid` and every process below it (a stopped loop's stopped `sleep` would outlive it).
    func withDescendants(_ pid: Int32) -> [Int32] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        let parents = Dictionary(uniqueKeysWithValues: processes.compactMap { process -> (Int32, Int32)? in
            guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 ? Int32(fields[1]).map { (process, $0) } : nil
        })
        var found: [Int32] = [], pending = [pid]
        while let next = pending.popLast() {
            found.append(next)
            pending += parents.filter { $0.value == next }.map(\.key)
        }
        return found
    }
}
