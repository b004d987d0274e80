/// This process's cgroups, read from `/proc/self`.
enum CgroupSystem {
    /// `root` (`--cgroup-root`) for cgroup v2 when given, else this process's own cgroup.
    static func locate(_ version: CgroupVersion, root: String?) -> Result<CgroupLocation, FreezerUnusable> {
        guard let root, version == .v2 else { return locate(version) }
        return procSelf.flatMap { CgroupPaths.locate(.v2, directory: root, mounts: $0.mounts) }
    }

    /// Where this process's own cgroup is in `version`'s hierarchy, or why there is none.
    static func locate(_ version: CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> {
        procSelf.flatMap { CgroupPaths.locate(version, mounts: $0.mounts, cgroups: $0.cgroups) }
    }

    /// The cgroup mounts and this process's cgroups, from one read and one parse of
    /// `/proc/self/mountinfo` and `/proc/self/cgroup`: start-up asks several times (the sweeper,
    /// then the selection), and neither changes meanwhile.
    private static let procSelf: Result<(mounts: [MountInfo], cgroups: ProcessCgroups), FreezerUnusable> = {
        switch (FileIO.readFile("/proc/self/mountinfo"), FileIO.readFile("/proc/self/cgroup")) {
        case (.success(let mountInfo), .success(let processCgroups)):
            return .success((CgroupPaths.parseMountInfo(mountInfo), CgroupPaths.parseProcessCgroups(processCgroups)))
        case (.failure(let error), _), (_, .failure(let error)):
            return .failure(FreezerUnusable("/proc/self can't be read: \(error.sentenceText)"))
        }
    }()
}
