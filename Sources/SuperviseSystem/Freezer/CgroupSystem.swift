/// This process's cgroups, read from `/proc/self`.
enum CgroupSystem {
    /// Where this process's own cgroup is in `version`'s hierarchy, or why there is none.
    static func locate(_ version: CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> {
        version == .v2 ? located.v2 : located.v1Freezer
    }

    /// `root` (`--cgroup-root`) for cgroup v2 when given, else this process's own cgroup.
    static func locate(_ version: CgroupVersion, root: String?) -> Result<CgroupLocation, FreezerUnusable> {
        guard let root, version == .v2 else { return locate(version) }
        switch FileIO.readFile("/proc/self/mountinfo") {
        case .success(let mountInfo): return CgroupPaths.locate(.v2, directory: root, mountInfo: mountInfo)
        case .failure(let error): return .failure(FreezerUnusable("/proc/self can't be read: \(error.sentenceText)"))
        }
    }

    /// Both hierarchies, from one read of `/proc/self/mountinfo` and `/proc/self/cgroup`:
    /// start-up asks several times (the sweeper, then the selection), and neither changes meanwhile.
    private static let located: (v2: Result<CgroupLocation, FreezerUnusable>,
                                 v1Freezer: Result<CgroupLocation, FreezerUnusable>) = {
        switch (FileIO.readFile("/proc/self/mountinfo"), FileIO.readFile("/proc/self/cgroup")) {
        case (.success(let mountInfo), .success(let cgroups)):
            return (CgroupPaths.locate(.v2, mountInfo: mountInfo, processCgroups: cgroups),
                    CgroupPaths.locate(.v1Freezer, mountInfo: mountInfo, processCgroups: cgroups))
        case (.failure(let error), _), (_, .failure(let error)):
            let failure = Result<CgroupLocation, FreezerUnusable>.failure(
                FreezerUnusable("/proc/self can't be read: \(error.sentenceText)"))
            return (failure, failure)
        }
    }()
}
