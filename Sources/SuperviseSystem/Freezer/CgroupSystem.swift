/// This process's cgroups, read from `/proc/self`.
enum CgroupSystem {
    /// Where this process's own cgroup is in `version`'s hierarchy, or why there is none.
    static func locate(_ version: CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> {
        version == .v2 ? located.v2 : located.v1Freezer
    }

    /// Both hierarchies, from one read and one parse of `/proc/self/mountinfo` and `/proc/self/cgroup`:
    /// start-up asks several times (the sweeper, then the selection), and neither changes meanwhile.
    private static let located: (v2: Result<CgroupLocation, FreezerUnusable>,
                                 v1Freezer: Result<CgroupLocation, FreezerUnusable>) = {
        switch (FileIO.readFile("/proc/self/mountinfo"), FileIO.readFile("/proc/self/cgroup")) {
        case (.success(let mountInfo), .success(let processCgroups)):
            let mounts = CgroupPaths.parseMountInfo(mountInfo)
            let cgroups = CgroupPaths.parseProcessCgroups(processCgroups)
            return (CgroupPaths.locate(.v2, mounts: mounts, cgroups: cgroups),
                    CgroupPaths.locate(.v1Freezer, mounts: mounts, cgroups: cgroups))
        case (.failure(let error), _), (_, .failure(let error)):
            let failure = Result<CgroupLocation, FreezerUnusable>.failure(
                FreezerUnusable("/proc/self can't be read: \(error.sentenceText)"))
            return (failure, failure)
        }
    }()
}
