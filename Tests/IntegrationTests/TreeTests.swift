import Foundation
import Testing

/// Whole process trees, through the real binary: frozen, resumed and killed as one.
@Suite struct TreeTests {
    static let loops = ["main", "one", "two", "escaped"]
    let directory = Supervise.temporaryDirectory()

    func counter(_ name: String) -> Int {
        Int(((try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func pid(_ name: String) -> Int32 {
        Int32(((try? String(contentsOfFile: directory.appendingPathComponent(name + ".pid").path, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func alive(_ pid: Int32) -> Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
    }

    func waitForLoops() -> Bool {
        Supervise.eventually { Self.loops.allSatisfy { counter($0) > 2 } }
    }

    /// Which loops moved during `seconds`.
    func moving(during seconds: Double) -> Set<String> {
        let before = Dictionary(uniqueKeysWithValues: Self.loops.map { ($0, counter($0)) })
        Thread.sleep(forTimeInterval: seconds)
        return Set(Self.loops.filter { counter($0) != before[$0] })
    }

    @Test(arguments: Backend.usable)
    func treeIsFrozenAndResumedAsOne(backend: Backend) throws {
        var whileFrozen: Set<String> = ["?"], afterThaw: Set<String> = []
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0", "--freeze-timeout", "5", "--control", "none", "--",
                                     Supervise.worker("tree.sh"), directory.path]) { process in
            #expect(waitForLoops())
            kill(process.processIdentifier, SIGUSR1)
            Thread.sleep(forTimeInterval: 0.5)
            whileFrozen = moving(during: 0.5)
            kill(process.processIdentifier, SIGUSR2)
            Thread.sleep(forTimeInterval: 0.2)
            afterThaw = moving(during: 0.5)
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(run.timeline("state").contains("suspended"), "\(run.stderr)")
        if backend == .sigstop {
            #expect(whileFrozen == ["escaped"], "SIGSTOP reaches the process group only (the documented limit)")
        } else {
            #expect(whileFrozen.isEmpty, "every process of the tree is frozen: \(whileFrozen) moved")
        }
        #expect(afterThaw == Set(Self.loops))
        #expect(Supervise.eventually(timeout: 5) { ["main", "one", "two"].allSatisfy { !alive(pid($0)) } })
        if backend != .sigstop {
            #expect(Supervise.eventually(timeout: 5) { !alive(pid("escaped")) }, "the escaped grandchild goes with the cgroup")
        } else {
            kill(pid("escaped"), SIGKILL)
        }
    }

    @Test(arguments: Backend.usable.filter { $0 != .sigstop })
    func wholeTreeIsKilledOnExpiry(backend: Backend) throws {
        let run = try Supervise.run(["--freezer", backend.rawValue, "--window", "0.2", "--limit", "1", "--expiry-warning", "0.3",
                                     "--", Supervise.worker("tree.sh"), directory.path],
                                    stdin: "sleep 0.3\nbackground\nwait exited timeout=10s\n", environment: ["AWARE": "1"])
        #expect(run.status == 124, "\(run.stderr)")
        #expect(run.violations.first?["kind"] as? String == "expiry")
        for loop in Self.loops {
            #expect(Supervise.eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) survived the kill")
        }
    }

    @Test(arguments: Backend.usable)
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
        Thread.sleep(forTimeInterval: 0.5)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The next run sweeps what the dead supervisor left: it thaws, kills and removes.
        let next = try Supervise.run(["--freezer", backend.rawValue, "--", "true"])
        #expect(next.status == 0)
        let group = backend == .sigstop ? ["main", "one", "two"] : Self.loops
        for loop in group {
            #expect(Supervise.eventually(timeout: 5) { !alive(pid(loop)) }, "\(loop) survived its supervisor")
        }
        for path in cgroups {
            #expect(!FileManager.default.fileExists(atPath: path), "stale cgroup left: \(path)")
        }
        if backend == .sigstop { kill(pid("escaped"), SIGKILL) }
    }
}
