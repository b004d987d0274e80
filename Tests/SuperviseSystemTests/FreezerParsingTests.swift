import Testing
@testable import SuperviseLifecycle
@testable import SuperviseSystem

@Suite(.timeLimit(.minutes(5))) struct FreezerParsingTests {
    static let hybridMountInfo = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
        40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """
    static let hybridCgroup = """
        9:name=systemd:/
        6:freezer:/
        4:memory:/process_api/e2711d7d07c22dd2556cffd79482b72e
        1:cpu:/
        0::/
        """
    static let pureV2MountInfo = """
        22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
        30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 master:1 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
        """
    static let pureV2Cgroup = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-u7.service\n"
    static let v1OnlyMountInfo = """
        600 599 0:52 /docker/abc /sys/fs/cgroup/freezer ro,nosuid - cgroup cgroup rw,freezer
        601 599 0:53 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct
        """
    static let v1OnlyCgroup = "5:freezer:/docker/abc/job\n4:cpu,cpuacct:/docker/abc\n"

    @Test func hybridFindsBothHierarchies() {
        #expect(CgroupPaths.locate(.v2, mountInfo: Self.hybridMountInfo, processCgroups: Self.hybridCgroup)
            == .success(CgroupLocation(mountPoint: "/sys/fs/cgroup/unified", directory: "/sys/fs/cgroup/unified")))
        #expect(CgroupPaths.locate(.v1Freezer, mountInfo: Self.hybridMountInfo, processCgroups: Self.hybridCgroup)
            == .success(CgroupLocation(mountPoint: "/sys/fs/cgroup/freezer", directory: "/sys/fs/cgroup/freezer")))
    }

    @Test func aCgroupRootMustBeInTheV2Hierarchy() {
        let delegated = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"
        #expect(CgroupPaths.locate(.v2, directory: delegated + "/", mountInfo: Self.pureV2MountInfo)
            == .success(CgroupLocation(mountPoint: "/sys/fs/cgroup", directory: delegated)))
        #expect(CgroupPaths.locate(.v2, directory: "/sys/fs/cgroup", mountInfo: Self.pureV2MountInfo)
            == .success(CgroupLocation(mountPoint: "/sys/fs/cgroup", directory: "/sys/fs/cgroup")))
        for outside in ["/tmp", "/sys/fs/cgroupx/a", "sys/fs/cgroup/a"] {
            #expect(CgroupPaths.locate(.v2, directory: outside, mountInfo: Self.pureV2MountInfo)
                == .failure(FreezerUnusable("--cgroup-root \(outside) is not in the cgroup v2 hierarchy mounted at /sys/fs/cgroup")))
        }
    }

    @Test func pureV2JoinsTheNestedPathAndHasNoV1Freezer() {
        #expect(CgroupPaths.locate(.v2, mountInfo: Self.pureV2MountInfo, processCgroups: Self.pureV2Cgroup)
            == .success(CgroupLocation(
                mountPoint: "/sys/fs/cgroup",
                directory: "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-u7.service")))
        #expect(CgroupPaths.locate(.v1Freezer, mountInfo: Self.pureV2MountInfo, processCgroups: Self.pureV2Cgroup)
            == .failure(FreezerUnusable("no cgroup v1 freezer hierarchy is mounted")))
    }

    @Test func v1OnlyStripsTheMountRootAndHasNoV2() {
        #expect(CgroupPaths.locate(.v1Freezer, mountInfo: Self.v1OnlyMountInfo, processCgroups: Self.v1OnlyCgroup)
            == .success(CgroupLocation(mountPoint: "/sys/fs/cgroup/freezer", directory: "/sys/fs/cgroup/freezer/job")))
        #expect(CgroupPaths.locate(.v2, mountInfo: Self.v1OnlyMountInfo, processCgroups: Self.v1OnlyCgroup)
            == .failure(FreezerUnusable("no cgroup v2 hierarchy is mounted")))
    }

    @Test func aCgroupOutsideTheMountedSubtreeIsReported() {
        let result = CgroupPaths.locate(.v1Freezer, mountInfo: Self.v1OnlyMountInfo,
                                        processCgroups: "5:freezer:/elsewhere\n")
        #expect(result == .failure(FreezerUnusable(
            "this process's cgroup v1 freezer cgroup /elsewhere is not visible under /sys/fs/cgroup/freezer", cause: .notVisible)))
    }

    @Test func aMissingUnifiedLineIsReported() {
        let result = CgroupPaths.locate(.v2, mountInfo: Self.hybridMountInfo, processCgroups: "6:freezer:/\n")
        #expect(result == .failure(FreezerUnusable(
            "this process is in no cgroup v2 cgroup (/proc/self/cgroup has no 0:: line)")))
    }

    @Test func mountInfoFieldsAndEscapes() {
        let mounts = CgroupPaths.parseMountInfo(
            "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
            + "50 31 0:40 /a\\040b /mnt/cg\\040roup rw shared:3 master:2 - cgroup cgroup rw,cpu,freezer\nbroken line\n"
            + "51 31 0:41 / /mnt/cgroup\\0402 rw - cgroup2 cgroup2 rw,nsdelegate\n")
        #expect(mounts == [MountInfo(root: "/a b", mountPoint: "/mnt/cg roup", fileSystemType: "cgroup",
                                     superOptions: ["rw", "cpu", "freezer"]),
                          MountInfo(root: "/", mountPoint: "/mnt/cgroup 2", fileSystemType: "cgroup2",
                                    superOptions: ["rw", "nsdelegate"])])
    }

    @Test func processCgroupsSplitsControllerLists() {
        let cgroups = CgroupPaths.parseProcessCgroups("4:cpu,cpuacct:/a\n9:name=systemd:/b\n0::/c/d\n")
        #expect(cgroups == ProcessCgroups(unified: "/c/d",
                                          byController: ["cpu": "/a", "cpuacct": "/a", "name=systemd": "/b"]))
    }

    @Test(arguments: [("worker", "worker"), ("my worker/ü:1", "my_worker___1"), ("", "child"), ("a.b-c_d", "a.b-c_d")])
    func childNamesAreSanitized(name: String, expected: String) {
        #expect(PortableName.sanitized(name) == expected)
    }

    @Test func statIsParsedFromTheLastParenthesis() {
        let line = "4242 (a) b (c)) T 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 1 0 98765 1000 10 18446744073709551615"
        #expect(ProcFS.parseStat(line) == ProcessStat(state: "T", parent: 1, userTicks: 7, systemTicks: 3,
                                                      reapedChildrenTicks: 3, startTicks: 98765, residentPages: 10))
        #expect(ProcFS.parseStat("4242 (truncated") == nil)
        for start in ["9x765", "99999999999999999999", "-1"] {
            let malformed = line.split(separator: " ").map { $0 == "98765" ? start : String($0) }.joined(separator: " ")
            #expect(ProcFS.parseStat(malformed) == nil)
        }
    }

    /// CPU time (with reaped children's) and resident memory, both from `stat`, summed.
    @Test func usageIsSummedFromStats() throws {
        let line = "4242 (a) T 1 4240 4240 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 1 0 98765 1000 300 18446744073709551615"
        let stat = try #require(ProcFS.parseStat(line))
        #expect(ProcFS.usage(of: [stat, stat]) == ResourceUsage(rssKB: 2 * 300 * ProcFS.pageSize / 1024,
                                                               cpuMS: Double(2 * 13) * 1000 / Double(ProcFS.ticksPerSecond)))
        #expect(ProcFS.usage(of: [ProcessStat]()) == ResourceUsage(rssKB: 0, cpuMS: 0))
    }

    @Test func pendingSIGKILLIsReadFromEitherPendingSet() {
        func status(thread: String, shared: String) -> String {
            "Name:\tsleep\nState:\tD (disk sleep)\nSigQ:\t1/63405\nSigPnd:\t\(thread)\nShdPnd:\t\(shared)\nSigBlk:\t0000000000000100\n"
        }
        #expect(ProcFS.killPending(status: status(thread: "0000000000000100", shared: "0000000000000000")))
        #expect(ProcFS.killPending(status: status(thread: "0000000000000000", shared: "0000000000004102")))
        #expect(!ProcFS.killPending(status: status(thread: "0000000000000000", shared: "0000000000000000")),
                "a blocked mask (SigBlk) is not a pending signal")
        #expect(!ProcFS.killPending(status: status(thread: "0000000000004000", shared: "00000000000000ff")),
                "SIGTERM and signals 1 to 8 are not SIGKILL")
        #expect(!ProcFS.killPending(status: ""))
    }

    @Test func keyValueFilesAreRead() {
        let events = "populated 1\nfrozen 0\n"
        #expect(CgroupV2Unit.value(of: "populated", in: events) == 1)
        #expect(CgroupV2Unit.value(of: "frozen", in: events) == 0)
        #expect(CgroupV2Unit.value(of: "usage_usec", in: "usage_usec 52000\nuser_usec 1\n") == 52000)
        #expect(CgroupV2Unit.value(of: "missing", in: events) == nil)
    }
}
