/// This process's cgroups, read from `/proc/self`.
enum CgroupSystem {
    /// Where the freezer of `version` makes this supervisor's cgroup: `root` (`--cgroup-root`)
    /// for cgroup v2 when given; else this process's own cgroup, unless that is a systemd
    /// service's cgroup the unit did not delegate (``SystemdDelegation``).
    static func place(_ version: CgroupVersion, root: String?) -> Result<CgroupLocation, FreezerUnusable> {
        locate(version, root: root).flatMap { location in
            guard version == .v2, root == nil else { return .success(location) }
            let marks = SystemdDelegation.Marks(invocationID: systemdMark("invocation_id", of: location.directory),
                                                delegate: systemdMark("delegate", of: location.directory))
            return SystemdDelegation.refusal(directory: location.directory, marks: marks)
                .map { .failure($0) } ?? .success(location)
        }
    }

    /// systemd's mark `name` on the cgroup `directory`: `trusted.NAME`, which root reads, else `user.NAME`.
    private static func systemdMark(_ name: String, of directory: String) -> String? {
        FileIO.extendedAttribute("trusted." + name, of: directory) ?? FileIO.extendedAttribute("user." + name, of: directory)
    }

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
