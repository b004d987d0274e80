#if os(Linux)
/// This process's cgroups, read from `/proc/self`.
enum CgroupSystem {
    /// Where this process's own cgroup is in `version`'s hierarchy, or why there is none.
    static func locate(_ version: CgroupVersion) -> Result<CgroupLocation, FreezerUnusable> {
        switch (FileIO.readFile("/proc/self/mountinfo"), FileIO.readFile("/proc/self/cgroup")) {
        case (.success(let mountInfo), .success(let cgroups)):
            CgroupPaths.locate(version, mountInfo: mountInfo, processCgroups: cgroups)
        case (.failure(let error), _), (_, .failure(let error)):
            .failure(FreezerUnusable("/proc/self can't be read: \(error.sentenceText)"))
        }
    }
}
#endif
