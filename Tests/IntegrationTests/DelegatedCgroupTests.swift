import Foundation
import Testing
import SuperviseTestSupport

/// `--cgroup-root` and supervising without root: a supervisor run as the unprivileged test user
/// inside a cgroup v2 subtree chowned to it gets the cgroup2 freezer there; without one, the
/// fallback says which step was denied and how to delegate.
@Suite(.blockingThreads, .serialized, .timeLimit(.minutes(5))) struct DelegatedCgroupTests {
    static let suite = "DelegatedCgroupTests"

    /// Why a cgroup v2 subtree can't be made and delegated here, or nil.
    static let missingReason: String? = {
        if let reason = Backend.cgroup2.unavailableReason { return reason }
        if let reason = TestUser.missingReason { return reason }
        return FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") ? nil : "util-linux's setpriv is not installed"
    }()

    /// A fresh cgroup below the v2 mount with `sup` (the supervisor's) and `kids` inside, all owned by the
    /// test user, as a delegation makes them; removed by `remove()`.
    struct DelegatedCgroup {
        let root: String
        var supervisor: String { root + "/sup" }
        var children: String { root + "/kids" }

        init() throws {
            let mount = try #require(Backend.mountPoint(type: "cgroup2", option: nil))
            root = mount + "/supervise-delegation-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let uid = TestUser.uid(TestUser.name), gid = getpwnam(TestUser.name)!.pointee.pw_gid
            for directory in [root, supervisor, children] {
                guard mkdir(directory, 0o755) == 0 else { throw SetupFailure("mkdir \(directory): \(String(cString: strerror(errno)))") }
                for file in ["", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"] {
                    chown(directory + file, uid, gid)
                }
            }
        }

        /// Removes the cgroups, deepest first, once the processes in them are gone.
        func remove() {
            for directory in [supervisor, children, root] {
                let subdirectories = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                    .map { directory + "/" + $0 }.filter { path in
                        var isDirectory: ObjCBool = false
                        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                    }
                subdirectories.forEach { removeCgroup($0) }
                removeCgroup(directory)
            }
        }
    }

    /// Runs supervise as the test user, started in `cgroup` (nil: the test's own) by a root shell.
    private func runAsTestUser(in cgroup: String?, _ arguments: [String], stdin: String) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let supervise = ([Supervise.binary] + arguments).map(ShellScript.quoted).joined(separator: " ")
        let place = cgroup.map { "echo $$ > \(ShellScript.quoted($0 + "/cgroup.procs")) && " } ?? ""
        return try ShellScript.run(place + "exec /usr/bin/setpriv --reuid=\(TestUser.name) --regid=\(TestUser.name) --clear-groups "
                                   + supervise, stdin: stdin)
    }

    @Test(.skip("a delegated cgroup", because: missingReason, in: suite))
    func anUnprivilegedSupervisorFreezesWithCgroup2InItsDelegatedSubtree() throws {
        let cgroup = try DelegatedCgroup()
        defer { cgroup.remove() }
        let run = try runAsTestUser(in: cgroup.supervisor, ["--freezer", "cgroup2", "--cgroup-root", cgroup.children, "--window", "0",
                                                           "--", "sleep", "30"],
                                    stdin: "background\nwait suspended timeout=10s\nstatus\nterminate\n")
        #expect(run.status == 0 || run.status == 143, "\(run.stderr)")
        let status = run.stdout.split(separator: "\n").first { $0.hasPrefix("{\"name\":") } ?? ""
        #expect(status.contains("\"state\":\"suspended\"") && status.contains("\"freezer\":\"cgroup2\""), "\(status)\n\(run.stderr)")
        #expect(status.contains("\"cgroup\":\"\(cgroup.children)/supervise-"), "its cgroups are in --cgroup-root: \(status)")
    }

    @Test(.skip("a delegated cgroup", because: missingReason, in: suite))
    func withoutDelegationTheFallbackSaysWhatWasDeniedAndHowToDelegate() throws {
        let run = try runAsTestUser(in: nil, ["--control", "none", "--", "true"], stdin: "")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("cgroup2 passed over: cgroup v2 at ") && run.stderr.contains("is not writable: permission denied"),
                "\(run.stderr)")
        #expect(run.stderr.contains("Delegate=yes") && run.stderr.contains("--cgroup-root"), "\(run.stderr)")
        let explicit = try runAsTestUser(in: nil, ["--control", "none", "--freezer", "cgroup2", "--", "true"], stdin: "")
        #expect(explicit.status == 125 && explicit.stderr.contains("--cgroup-root"), "\(explicit.stderr)")
    }

    @Test(.skip("cgroup v2", because: Backend.cgroup2.unavailableReason, in: suite))
    func aRootSupervisorPutsItsCgroupInTheCgroupRootAndSweepsItsStaleOnes() throws {
        let mount = try #require(Backend.mountPoint(type: "cgroup2", option: nil))
        let root = mount + "/supervise-cgroup-root-test-\(getpid())"
        try #require(mkdir(root, 0o755) == 0)
        defer { removeCgroup(root) }
        // What a supervisor killed with SIGKILL leaves: no one holds it locked.
        let stale = root + "/supervise-1-0123456789abcdef"
        try #require(mkdir(stale, 0o755) == 0)
        defer { rmdir(stale) }
        let run = try Supervise.run(["--control", "none", "--freezer", "cgroup2", "--cgroup-root", root, "--",
                                     "sh", "-c", "grep '^0::' /proc/self/cgroup"])
        #expect(run.status == 0, "\(run.stderr)")
        let relative = String(root.dropFirst(mount.count))
        #expect(run.stdout.hasPrefix("0::\(relative)/supervise-"), "\(run.stdout)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).allSatisfy { !$0.hasPrefix("supervise-") },
                "its cgroup is removed at the end, and the stale one was swept")
    }

    @Test func aCgroupRootOutsideTheHierarchyIsPassedOverWithTheReason() throws {
        let run = try Supervise.run(["--control", "none", "--cgroup-root", "/tmp", "--", "true"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("cgroup2 passed over: --cgroup-root /tmp is not in the cgroup v2 hierarchy"), "\(run.stderr)")
    }
}
