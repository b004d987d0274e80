import Foundation
import Testing
import SuperviseTestSupport

/// Supervisors that share one cgroup tree from different pid namespaces, where pids mean nothing to
/// each other: while one lives, no other's sweep touches its cgroups; once it is dead, the next run sweeps them.
@Suite(.blockingThreads, .timeLimit(.minutes(6))) struct NamespaceOwnershipTests {
    @Test(.skip("cgroup2 in a pid namespace", because: PIDNamespace.unavailableReason(with: .cgroup2), in: "NamespaceOwnershipTests"))
    func cgroup2SupervisorsInOtherPIDNamespacesLeaveEachOtherAlone() throws { try leaveEachOtherAlone(.cgroup2) }

    @Test(.skip("cgroup1 in a pid namespace", because: PIDNamespace.unavailableReason(with: .cgroup1), in: "NamespaceOwnershipTests"))
    func cgroup1SupervisorsInOtherPIDNamespacesLeaveEachOtherAlone() throws { try leaveEachOtherAlone(.cgroup1) }

    @Test(.skip("cgroup2 in a pid namespace", because: PIDNamespace.unavailableReason(with: .cgroup2), in: "NamespaceOwnershipTests"))
    func cgroup2SupervisorKilledInAPIDNamespaceIsSweptByTheNextRun() throws { try deadOneIsSwept(.cgroup2) }

    @Test(.skip("cgroup1 in a pid namespace", because: PIDNamespace.unavailableReason(with: .cgroup1), in: "NamespaceOwnershipTests"))
    func cgroup1SupervisorKilledInAPIDNamespaceIsSweptByTheNextRun() throws { try deadOneIsSwept(.cgroup1) }

    /// One supervisor as pid 1 of its own pid namespace, one beside it, each with a frozen `sleep`;
    /// then a short run in a new pid namespace (pid 1 again) and one outside, each of which sweeps.
    func leaveEachOtherAlone(_ backend: Backend) throws {
        let arguments = ["--freezer", backend.rawValue, "--window", "0", "--", "sleep", "300"]
        let supervisors = [try LiveSupervise(arguments, inPIDNamespace: true), try LiveSupervise(arguments)]
        defer { for supervisor in supervisors { supervisor.stop() } }
        for supervisor in supervisors {
            supervisor.send("background")
            supervisor.send("wait suspended timeout=10s")
        }
        let statuses = supervisors.map { $0.status() }
        let cgroups = try statuses.map { try #require($0?["cgroup"] as? String, "no status: \(supervisors.map(\.log))") }
        #expect(statuses.map { $0?["state"] as? String } == ["suspended", "suspended"])
        let owners = cgroups.map(SupervisorCgroups.owning)
        #expect(owners.allSatisfy { SupervisorCgroups.isSupervisorName(Substring(URL(fileURLWithPath: $0).lastPathComponent)) },
                "\(owners)")
        #expect(Set(owners).count == 2, "two supervisors, one cgroup: \(owners)")
        let children = cgroups.map(SupervisorCgroups.pids(in:))
        #expect(children.map(\.count) == [1, 1], "each cgroup holds its sleep: \(children)")

        let sweeps = [try LiveSupervise(["--freezer", backend.rawValue, "--", "true"], inPIDNamespace: true),
                      try LiveSupervise(["--freezer", backend.rawValue, "--", "true"])]
        for sweep in sweeps {
            #expect(sweep.exitStatus() == 0, "\(sweep.log)")
            for owner in owners {
                #expect(!sweep.log.contains(owner), "a sweep judged a live supervisor's cgroup: \(sweep.log)")
            }
        }

        for (supervisor, (cgroup, pids)) in zip(supervisors, zip(cgroups, children)) {
            #expect(FileManager.default.fileExists(atPath: cgroup), "\(cgroup) was removed under its supervisor")
            #expect(pids.allSatisfy(isAlive), "the child of \(cgroup) died under its supervisor")
            #expect(supervisor.status()?["state"] as? String == "suspended")
        }
        for (supervisor, (owner, pids)) in zip(supervisors, zip(owners, children)) {
            #expect(supervisor.terminate() == 0, "\(supervisor.log)")
            #expect(!FileManager.default.fileExists(atPath: owner), "left behind: \(owner)")
            #expect(eventually(timeout: 5) { !pids.contains(where: isAlive) }, "the child of \(owner) outlived it")
        }
    }

    /// A supervisor SIGKILLed as pid 1 of its pid namespace, its child frozen: the kernel kills what it can
    /// of the namespace (a v1-frozen task only once thawed), the cgroups stay, and the next run removes them.
    func deadOneIsSwept(_ backend: Backend) throws {
        let dead = try LiveSupervise(["--freezer", backend.rawValue, "--window", "0", "--", "sleep", "300"], inPIDNamespace: true)
        defer { dead.stop() }
        dead.send("background")
        dead.send("wait suspended timeout=10s")
        let cgroup = try #require(dead.status()?["cgroup"] as? String, "no status: \(dead.log)")
        let owner = SupervisorCgroups.owning(cgroup)
        let child = SupervisorCgroups.pids(in: cgroup)
        #expect(child.count == 1)
        let supervisor = try #require(dead.supervisorPID)
        kill(supervisor, SIGKILL)
        // Its files are closed (and its lock dropped) early in its exit; as pid 1 it then waits for the
        // rest of its namespace, which a v1-frozen task never leaves until the sweep thaws it.
        #expect(eventually { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(supervisor)/fd"))?.isEmpty ?? true })
        // The kernel never removes a cgroup directory: once it is stale, only a sweep does, and any
        // supervisor starting now sweeps, the other tests' that run beside this one too.
        let sweptAlready = !FileManager.default.fileExists(atPath: owner)
        if sweptAlready { print("NamespaceOwnershipTests: \(owner) was swept by a run beside this test before its own") }

        let next = try Supervise.run(["--freezer", backend.rawValue, "--", "true"])
        #expect(next.status == 0, "\(next.stderr)")
        // A run beside this one may be sweeping it right now: its lock makes this run pass it over,
        // and it is gone once that sweep ends (a lock the dead supervisor still held would keep
        // every run from it, and this would fail).
        #expect(eventually(timeout: 10) { !FileManager.default.fileExists(atPath: owner) },
                "stale cgroup left: \(owner): \(next.stderr)")
        #expect(eventually(timeout: 5) { !child.contains(where: isAlive) }, "the frozen child survived its supervisor")
        #expect(dead.exitStatus() != nil, "the dead supervisor's namespace never ended")
    }
}

/// Whether `pid` is a process that has not exited (a zombie counts as gone).
private func isAlive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
    return !stat.contains(") Z ")
}
